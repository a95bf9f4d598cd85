//! Test support: reading one HTTP request off a socket, for the scripted servers of the transport
//! tests here and of the extension's fault tests (they test parsing, retries, timeouts,
//! concurrency and outages, never a model).

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;

/// The body of the request on `stream` (headers read up to the blank line, then Content-Length
/// bytes); `None` if the client closed the connection first.
pub fn read_request(stream: &TcpStream) -> Option<Vec<u8>> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().ok()?;
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(body)
}
