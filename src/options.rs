//! Per-call options: the `options` jsonb of `nl2sql`, `nl2sql_run`, `nl2sql_execute`,
//! `nl2sql_select` and `nl2sql_distinguish`. Every option that overrides a setting has the
//! setting's name (`max_probes` overrides `nl2sql.max_probes`); the settings in force supply the
//! defaults ([`Settings`]). Unknown options and values out of range are errors (22023).

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::ask::prompts::Generator;
use crate::error::{Error, Result};
use crate::select::answer::RowSemantics;

/// The `nl2sql.*` settings in force: the defaults of every option.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Settings {
    pub llm_model: String,
    pub max_probes: usize,
    pub max_repairs: usize,
    pub probe_rows: usize,
    pub schema_token_budget: usize,
    pub temperature: f32,
    pub max_rows: usize,
    pub select_gate: f64,
    pub select_max_pairs: usize,
    pub instance_time_ms: u64,
    /// Refuse questions the database cannot answer (`nl2sql.refuse`).
    pub refuse: bool,
    /// Hand over SQL that is not verified (`unverified`, `ambiguous`) (`nl2sql.answer_unverified`).
    pub answer_unverified: bool,
    /// Verified examples each generation is shown, at most (`nl2sql.examples`; 0, the default:
    /// none). With the built-in Qwen2.5-Coder-1.5B, examples shown in a prompt cost more answers
    /// than they give (Benchmark 11: on the questions no taught example asks again, 14 wins and 41
    /// losses over eight runs), so none is shown unless a deployment with a larger model sets it;
    /// a taught example that asks the question again answers it whatever this says (`reuse`).
    pub examples: usize,
    /// The schemas questions are asked of (`nl2sql.schemas`: comma-separated, `*` for all;
    /// empty: the search_path, [`crate::context::schemas`]).
    pub schemas: String,
}

impl Default for Settings {
    /// The settings' built-in defaults (docs/configuration.md).
    fn default() -> Self {
        Settings {
            llm_model: "qwen2.5-coder-1.5b-instruct".into(),
            max_probes: 1,
            max_repairs: 1,
            probe_rows: 5,
            schema_token_budget: 1200,
            temperature: 0.0,
            max_rows: 10_000,
            select_gate: 0.6,
            select_max_pairs: 6,
            instance_time_ms: 3_000,
            refuse: true,
            answer_unverified: true,
            examples: 0,
            schemas: String::new(),
        }
    }
}

/// Reads one options object, refusing keys it does not know.
struct Reader {
    obj: Map<String, Value>,
}

fn bad(key: &str, want: &str) -> Error {
    Error::invalid(format!("option \"{key}\" must be {want}")).with_hint("See docs/sql-reference.md, options.")
}

impl Reader {
    fn new(options: &Value, known: &[&str], example: &str) -> Result<Self> {
        let obj = match options {
            Value::Object(m) => m.clone(),
            Value::Null => Map::new(),
            _ => return Err(Error::invalid("options must be a JSON object").with_hint(format!("For example '{example}'"))),
        };
        if let Some(k) = obj.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(Error::invalid(format!("unknown option \"{k}\"")).with_hint(format!("Valid options: {}.", known.join(", "))));
        }
        Ok(Reader { obj })
    }

    fn count(&self, key: &str, default: usize, min: usize, max: usize) -> Result<usize> {
        match self.obj.get(key) {
            None => Ok(default.clamp(min, max)),
            Some(v) => match v.as_u64() {
                Some(n) if (min as u64..=max as u64).contains(&n) => Ok(n as usize),
                _ => Err(bad(key, &format!("an integer from {min} to {max}"))),
            },
        }
    }

    fn real(&self, key: &str, default: f64, max: f64) -> Result<f64> {
        match self.obj.get(key) {
            None => Ok(default),
            Some(v) => match v.as_f64() {
                Some(x) if (0.0..=max).contains(&x) => Ok(x),
                _ => Err(bad(key, &format!("a number from 0 to {max}"))),
            },
        }
    }

    fn flag(&self, key: &str, default: bool) -> Result<bool> {
        match self.obj.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(bad(key, "true or false")),
        }
    }

    fn name(&self, key: &str, default: &str) -> Result<String> {
        match self.obj.get(key) {
            None => Ok(default.to_string()),
            Some(Value::String(m)) if !m.trim().is_empty() => Ok(m.trim().to_string()),
            Some(_) => Err(bad(key, "a model name")),
        }
    }

    fn choice<T: Copy>(&self, key: &str, default: T, choices: &[(&str, T)]) -> Result<T> {
        let want = || {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            bad(key, &names.join(" or "))
        };
        match self.obj.get(key) {
            None => Ok(default),
            Some(Value::String(s)) => choices.iter().find(|(n, _)| n == s).map(|(_, v)| *v).ok_or_else(want),
            Some(_) => Err(want()),
        }
    }
}

/// How N-version candidates that disagree are settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Settle {
    /// The heaviest result cluster by the experts' weights.
    Vote,
    /// Below the gate, duels on separating instances judged by the model.
    Tournament,
}

/// Options of the ask pipeline (`nl2sql`, `nl2sql_run`, `nl2sql_execute`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AskOptions {
    pub llm_model: String,
    pub max_probes: usize,
    pub max_repairs: usize,
    pub probe_rows: usize,
    pub schema_token_budget: usize,
    pub temperature: f32,
    pub seed: Option<u64>,
    pub probe: bool,
    /// Probe only when the question names a value the value index did not ground (`ask::probe::to_ground`).
    pub probe_gate: bool,
    pub verify: bool,
    /// Repair by rewrite on the syntax tree, before the model (`ask::fix`).
    pub fix: bool,
    pub repair: bool,
    /// Look the question's values up in the value index.
    pub values: bool,
    /// The values stage first asks the model for the question's keywords (one call) and searches
    /// each; off by default: with the local 1.5B model it found 1 more gold value of 295
    /// (Benchmark 4) for 2.8 s per question.
    pub value_keywords: bool,
    /// Refine a query whose result is empty (one round); off by default: in the raw results of
    /// Benchmarks 2 and 6 kept in `bench/results` (143 refinements, 79 on `spider_train`), the
    /// model's refined query was never accepted, so no answer changed, and each cost 3 to 5 s.
    /// A value written otherwise than stored is the `literal` check's, which drives a repair.
    pub refine: bool,
    /// A verified answer that reads more than one table is `ok` only when a second reading by
    /// another generator returns the same rows (`ask::confirm`).
    pub confirm: bool,
    /// A question the database cannot answer gets no SQL and ends `unanswerable` (`scope`).
    pub refuse: bool,
    /// A run that ends `unverified` or `ambiguous` hands its SQL over; off, only `ok` does (the
    /// others keep their status and explanation, and give no SQL: [`crate::ask::Explanation::answered`]).
    pub answer_unverified: bool,
    /// Verified examples (the nearest, on tables the caller can see) go into every generation, at
    /// most this many (0, the default: none, [`Settings::examples`]); the glossary entries the
    /// question mentions always do.
    pub examples: usize,
    /// A verified example that asks the question again ([`crate::ground::same::asked_again`])
    /// answers it with its SQL, verified like any candidate, instead of a fresh generation.
    pub reuse: bool,
    /// The schemas the question is asked of (empty: as the search_path says,
    /// [`crate::context::schemas::choose`]; `*`: every schema).
    pub schemas: Vec<String>,
    /// Two-round generation: a draft, its schema linked and closed over foreign keys, then the
    /// final generation on that pruned schema.
    pub two_round: bool,
    /// The generators of N-version generation (one: a single generation).
    pub generators: Vec<Generator>,
    /// Answers drawn from each generator.
    pub samples: usize,
    pub select: Settle,
    /// Rows `nl2sql_execute` returns.
    pub max_rows: usize,
}

const ASK_KEYS: &[&str] = &[
    "llm_model", "max_probes", "max_repairs", "probe_rows", "schema_token_budget", "temperature", "seed", "probe",
    "probe_gate", "verify", "fix", "repair", "refine", "confirm", "refuse", "answer_unverified", "examples", "reuse", "schemas", "values", "value_keywords", "two_round", "generators", "samples", "select", "max_rows",
];

const GENERATORS_WANTED: &str = "a non-empty array of \"direct\", \"skeleton\", \"decompose\", \"few_shot\"";

impl AskOptions {
    pub fn parse(options: &Value, s: &Settings) -> Result<Self> {
        let r = Reader::new(options, ASK_KEYS, "{\"max_probes\": 0}")?;
        Ok(AskOptions {
            llm_model: r.name("llm_model", &s.llm_model)?,
            max_probes: r.count("max_probes", s.max_probes, 0, 5)?,
            max_repairs: r.count("max_repairs", s.max_repairs, 0, 5)?,
            probe_rows: r.count("probe_rows", s.probe_rows, 1, 100)?,
            schema_token_budget: r.count("schema_token_budget", s.schema_token_budget, 100, 100_000)?,
            temperature: r.real("temperature", s.temperature as f64, 2.0)? as f32,
            seed: match r.obj.get("seed") {
                None => None,
                Some(v) => Some(v.as_u64().ok_or_else(|| bad("seed", "a non-negative integer"))?),
            },
            probe: r.flag("probe", true)?,
            probe_gate: r.flag("probe_gate", true)?,
            verify: r.flag("verify", true)?,
            fix: r.flag("fix", true)?,
            repair: r.flag("repair", true)?,
            values: r.flag("values", true)?,
            value_keywords: r.flag("value_keywords", false)?,
            refine: r.flag("refine", false)?,
            confirm: r.flag("confirm", true)?,
            refuse: r.flag("refuse", s.refuse)?,
            answer_unverified: r.flag("answer_unverified", s.answer_unverified)?,
            examples: r.count("examples", s.examples, 0, 10)?,
            reuse: r.flag("reuse", true)?,
            schemas: match r.obj.get("schemas") {
                None => crate::context::schemas::parse_list(&s.schemas).map_err(|e| {
                    Error::invalid(format!("setting nl2sql.schemas: {e}")).with_hint("Set it to schema names separated by commas, * for all, or '' to follow search_path.")
                })?,
                Some(Value::String(t)) => crate::context::schemas::parse_list(t).map_err(|e| bad("schemas", &format!("schema names separated by commas ({e})")))?,
                Some(Value::Array(a)) => {
                    let mut out: Vec<String> = Vec::new();
                    for v in a {
                        let name = v.as_str().filter(|n| !n.is_empty()).ok_or_else(|| bad("schemas", "an array of schema names"))?;
                        if !out.iter().any(|o| o == name) {
                            out.push(name.to_string());
                        }
                    }
                    out
                }
                Some(_) => return Err(bad("schemas", "schema names: a comma-separated string or an array")),
            },
            two_round: r.flag("two_round", false)?,
            generators: match r.obj.get("generators") {
                None => vec![Generator::Decompose],
                Some(Value::Array(a)) if !a.is_empty() => {
                    let mut out: Vec<Generator> = Vec::new();
                    for g in a {
                        let g = g.as_str().and_then(Generator::parse).ok_or_else(|| bad("generators", GENERATORS_WANTED))?;
                        if !out.contains(&g) {
                            out.push(g);
                        }
                    }
                    out
                }
                Some(_) => return Err(bad("generators", GENERATORS_WANTED)),
            },
            samples: r.count("samples", 1, 1, 5)?,
            select: r.choice("select", Settle::Vote, &[("vote", Settle::Vote), ("tournament", Settle::Tournament)])?,
            max_rows: r.count("max_rows", s.max_rows, 0, 1_000_000)?,
        })
    }

    /// A single generation (one generator, one sample), or N-version.
    pub fn single_generation(&self) -> bool {
        self.generators.len() == 1 && self.generators[0] != Generator::FewShot && self.samples == 1
    }

    /// The options as they take effect, for the audit log: stages that are off show as off.
    pub fn effective(&self) -> Value {
        json!({
            "llm_model": self.llm_model,
            "max_probes": if self.probe { self.max_probes } else { 0 },
            "probe_gate": self.probe && self.probe_gate,
            "max_repairs": if self.repair && self.verify { self.max_repairs } else { 0 },
            "verify": self.verify,
            "fix": self.fix && self.verify,
            "values": self.values,
            "refine": self.refine && self.verify,
            "confirm": self.confirm && self.verify && self.single_generation(),
            "refuse": self.refuse,
            "answer_unverified": self.answer_unverified,
            "examples": self.examples,
            "reuse": self.reuse,
            "schemas": self.schemas,
            "value_keywords": self.values && self.value_keywords,
            "two_round": self.two_round,
            "generators": self.generators.iter().map(|g| g.name()).collect::<Vec<_>>(),
            "samples": self.samples,
            "select": self.select,
            "probe_rows": self.probe_rows,
            "schema_token_budget": self.schema_token_budget,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_rows": self.max_rows,
        })
    }
}

/// Options of selection (`nl2sql_select`, `nl2sql_distinguish`, and the tournament of N-version
/// generation).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SelectOptions {
    pub llm_model: String,
    pub compare: RowSemantics,
    pub select_gate: f64,
    pub select_max_pairs: usize,
    pub top_clusters: usize,
    pub votes: usize,
    pub vote_temperature: f32,
    /// Rows read per candidate on the full database.
    pub max_rows: usize,
    pub max_trials: usize,
    pub instance_time_ms: u64,
    pub adjudicate: bool,
    /// The expert behind each candidate (weighted majority), if given.
    pub experts: Option<Vec<String>>,
    /// Randomised weighted majority: the gate's choice is the cluster of an expert drawn by weight.
    pub randomised: bool,
    /// Candidates whose SQL breaks a requirement or draws a checker's repair directive weigh less
    /// (`select::verified`).
    pub verify: bool,
}

const SELECT_KEYS: &[&str] = &[
    "llm_model", "compare", "select_gate", "select_max_pairs", "top_clusters", "votes", "vote_temperature", "max_rows",
    "max_trials", "instance_time_ms", "adjudicate", "experts", "voting", "verify",
];

const EXPERTS_WANTED: &str = "an array of expert names, one per candidate";

impl SelectOptions {
    pub fn parse(options: &Value, s: &Settings) -> Result<Self> {
        let r = Reader::new(options, SELECT_KEYS, "{\"compare\": \"bag\"}")?;
        Ok(SelectOptions {
            llm_model: r.name("llm_model", &s.llm_model)?,
            compare: r.choice("compare", RowSemantics::Bag, &[("set", RowSemantics::Set), ("bag", RowSemantics::Bag)])?,
            select_gate: r.real("select_gate", s.select_gate, 1.0)?,
            select_max_pairs: r.count("select_max_pairs", s.select_max_pairs, 0, 100)?,
            top_clusters: r.count("top_clusters", 4, 2, 10)?,
            votes: r.count("votes", 3, 1, 9)?,
            vote_temperature: r.real("vote_temperature", 0.7, 2.0)? as f32,
            max_rows: r.count("max_rows", s.max_rows, 1, 1_000_000)?,
            max_trials: r.count("max_trials", 60, 1, 10_000)?,
            instance_time_ms: r.count("instance_time_ms", s.instance_time_ms as usize, 10, 600_000)? as u64,
            adjudicate: r.flag("adjudicate", true)?,
            experts: match r.obj.get("experts") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|e| e.as_str().filter(|s| !s.trim().is_empty()).map(|s| s.trim().to_string()))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| bad("experts", EXPERTS_WANTED))?,
                ),
                Some(_) => return Err(bad("experts", EXPERTS_WANTED)),
            },
            randomised: r.choice("voting", false, &[("wma", false), ("rwma", true)])?,
            verify: r.flag("verify", true)?,
        })
    }

    /// The defaults, as the settings in force give them.
    pub fn defaults(s: &Settings) -> Self {
        SelectOptions::parse(&Value::Null, s).expect("the defaults are valid")
    }

    /// The options as they take effect, for the audit log.
    pub fn effective(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut v {
            m.remove("randomised");
            m.insert("voting".into(), json!(if self.randomised { "rwma" } else { "wma" }));
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_supply_the_defaults_and_options_override_them_by_the_same_name() {
        let s = Settings { max_probes: 2, select_gate: 0.9, max_rows: 50, llm_model: "m".into(), ..Settings::default() };
        let a = AskOptions::parse(&Value::Null, &s).unwrap();
        assert_eq!((a.max_probes, a.max_rows, a.llm_model.as_str(), a.select), (2, 50, "m", Settle::Vote));
        assert!(a.single_generation());
        let a = AskOptions::parse(&json!({"max_probes": 0, "llm_model": " big ", "generators": ["direct", "skeleton", "direct"]}), &s).unwrap();
        assert_eq!((a.max_probes, a.llm_model.as_str(), a.generators.len()), (0, "big", 2));
        assert!(!a.single_generation());
        let o = SelectOptions::parse(&json!({"select_gate": 0.5, "instance_time_ms": 100, "voting": "rwma"}), &s).unwrap();
        assert_eq!((o.select_gate, o.instance_time_ms, o.randomised, o.max_rows), (0.5, 100, true, 50));
        assert_eq!(SelectOptions::defaults(&s).select_gate, 0.9);
        assert_eq!(o.effective()["voting"], json!("rwma"));
    }

    #[test]
    fn schemas_come_from_the_setting_or_the_option_as_a_list_or_an_array() {
        let s = Settings { schemas: "Sales, hr".into(), ..Settings::default() };
        assert_eq!(AskOptions::parse(&Value::Null, &s).unwrap().schemas, vec!["sales", "hr"]);
        assert_eq!(AskOptions::parse(&json!({"schemas": "*"}), &s).unwrap().schemas, vec!["*"]);
        assert_eq!(AskOptions::parse(&json!({"schemas": ["Mixed Case", "hr"]}), &s).unwrap().schemas, vec!["Mixed Case", "hr"]);
        assert!(AskOptions::parse(&json!({"schemas": ""}), &s).unwrap().schemas.is_empty(), "an empty option follows search_path");
        assert!(AskOptions::parse(&Value::Null, &Settings::default()).unwrap().schemas.is_empty());
        let e = AskOptions::parse(&json!({"schemas": "a;b"}), &s).unwrap_err();
        assert!(e.message.starts_with("option \"schemas\" must be schema names"), "{}", e.message);
        let e = AskOptions::parse(&Value::Null, &Settings { schemas: "x y".into(), ..Settings::default() }).unwrap_err();
        assert!(e.message.starts_with("setting nl2sql.schemas"), "{}", e.message);
        assert!(AskOptions::parse(&json!({"schemas": 3}), &s).is_err());
    }

    #[test]
    fn bad_options_are_clear_errors() {
        let s = Settings::default();
        let e = AskOptions::parse(&json!({"bogus": 1}), &s).unwrap_err();
        assert_eq!((e.sqlstate.as_str(), e.message.as_str()), ("22023", "unknown option \"bogus\""));
        assert!(e.hint.unwrap().contains("max_probes"));
        // the old names are gone
        assert!(SelectOptions::parse(&json!({"gate": 0.5}), &s).is_err());
        assert!(AskOptions::parse(&json!({"model": "x"}), &s).is_err());
        for (options, starts) in [
            (json!({"max_probes": 9}), "option \"max_probes\" must be an integer from 0 to 5"),
            (json!({"select": "best"}), "option \"select\" must be \"vote\" or \"tournament\""),
            (json!({"generators": []}), "option \"generators\""),
            (json!({"temperature": -1}), "option \"temperature\""),
            (json!({"verify": "yes"}), "option \"verify\" must be true or false"),
            (json!({"llm_model": ""}), "option \"llm_model\" must be a model name"),
        ] {
            let e = AskOptions::parse(&options, &s).unwrap_err();
            assert!(e.message.starts_with(starts), "{options}: {}", e.message);
        }
        assert_eq!(AskOptions::parse(&json!([1]), &s).unwrap_err().message, "options must be a JSON object");
        let e = SelectOptions::parse(&json!({"experts": ["a", 3]}), &s).unwrap_err();
        assert!(e.message.contains("expert names"));
        assert!(SelectOptions::parse(&json!({"compare": "list"}), &s).is_err());
    }
}
