//! Reads `USER_TIMEOUT` of the server's `TimeoutId` enum from its `utils/timeout.h`, which pgrx
//! does not bind, so the executor registers its timer under the number this server uses.
//! The server is the one pgrx builds against: `PG_CONFIG`, else `PGRX_PG_CONFIG_PATH`, else the
//! `pg15` entry of pgrx's config.toml, else `pg_config` on the PATH.

use std::path::PathBuf;
use std::process::Command;

fn pg_config() -> String {
    for var in ["PG_CONFIG", "PGRX_PG_CONFIG_PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
        if let Ok(v) = std::env::var(var) {
            if !v.is_empty() {
                return v;
            }
        }
    }
    let home = std::env::var("PGRX_HOME").map(PathBuf::from).unwrap_or_else(|_| {
        PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".pgrx")
    });
    if let Ok(config) = std::fs::read_to_string(home.join("config.toml")) {
        for line in config.lines() {
            if let Some(rest) = line.trim().strip_prefix("pg15") {
                if let Some(path) = rest.trim().strip_prefix('=') {
                    return path.trim().trim_matches('"').to_string();
                }
            }
        }
    }
    "pg_config".to_string()
}

fn main() {
    let pg_config = pg_config();
    let out = Command::new(&pg_config)
        .arg("--includedir-server")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {pg_config}: {e}"));
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let header = PathBuf::from(&dir).join("utils/timeout.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header).unwrap_or_else(|e| panic!("cannot read {}: {e}", header.display()));
    let body = text
        .split("typedef enum TimeoutId")
        .nth(1)
        .and_then(|rest| rest.split('{').nth(1))
        .and_then(|rest| rest.split('}').next())
        .unwrap_or_else(|| panic!("no TimeoutId enum in {}", header.display()));
    // the enumerators in order, comments removed; none before USER_TIMEOUT has an explicit value
    let mut without_comments = String::new();
    let mut rest = body;
    while let Some(start) = rest.find("/*") {
        without_comments.push_str(&rest[..start]);
        rest = rest[start..].split_once("*/").map_or("", |(_, after)| after);
    }
    without_comments.push_str(rest);
    let names: Vec<&str> = without_comments.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let index = names
        .iter()
        .position(|n| *n == "USER_TIMEOUT")
        .unwrap_or_else(|| panic!("no USER_TIMEOUT in the TimeoutId enum of {}", header.display()));
    assert!(names[..index].iter().all(|n| !n.contains('=')), "an enumerator before USER_TIMEOUT has an explicit value");
    println!("cargo:rustc-env=NL2SQL_USER_TIMEOUT={index}");
}
