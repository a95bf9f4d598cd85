//! The one error type of nl2sql: what went wrong, in words a user can act on, with the SQLSTATE
//! it is reported under and a hint. The decision code returns it; only the extension's SQL
//! boundary turns it into a PostgreSQL error.

use std::fmt;

use crate::llm::LlmError;
use crate::sql::Refusal;

/// The classes of error nl2sql reports, each with its SQLSTATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A required argument is NULL (22004).
    NullValue,
    /// An argument or option has a value nl2sql cannot use (22023).
    InvalidParameter,
    /// SQL that does not parse (42601).
    Syntax,
    /// The caller lacks a privilege (42501).
    Privilege,
    /// Something named does not exist, or the caller cannot see it (42704).
    UndefinedObject,
    /// Something nl2sql cannot do for this input (0A000).
    NotSupported,
    /// A statement that is not read-only (25006).
    ReadOnly,
    /// The model gave nothing usable (38000).
    Model,
    /// The model endpoint cannot be reached (08001).
    Unreachable,
    /// A time limit ran out (57014).
    Timeout,
    /// nl2sql's own state is not as it should be (55000).
    ObjectState,
    /// A file the server must read (58P01).
    File,
    /// A failure inside nl2sql or PostgreSQL that the caller cannot fix (XX000).
    Internal,
}

impl Kind {
    pub fn sqlstate(self) -> &'static str {
        match self {
            Kind::NullValue => "22004",
            Kind::InvalidParameter => "22023",
            Kind::Syntax => "42601",
            Kind::Privilege => "42501",
            Kind::UndefinedObject => "42704",
            Kind::NotSupported => "0A000",
            Kind::ReadOnly => "25006",
            Kind::Model => "38000",
            Kind::Unreachable => "08001",
            Kind::Timeout => "57014",
            Kind::ObjectState => "55000",
            Kind::File => "58P01",
            Kind::Internal => "XX000",
        }
    }
}

/// An error with its SQLSTATE, message and hint.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// The SQLSTATE, five characters.
    pub sqlstate: String,
    pub message: String,
    pub hint: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Error { sqlstate: kind.sqlstate().to_string(), message: message.into(), hint: None }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// A required argument that is NULL.
    pub fn null(argument: &str, hint: &str) -> Self {
        Error::new(Kind::NullValue, format!("{argument} is NULL")).with_hint(hint)
    }

    /// An argument or option with a value nl2sql cannot use.
    pub fn invalid(message: impl Into<String>) -> Self {
        Error::new(Kind::InvalidParameter, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Error::new(Kind::Internal, message)
    }

    /// An error PostgreSQL reported, with its own SQLSTATE.
    pub fn reported(sqlstate: &str, message: impl Into<String>, hint: Option<String>) -> Self {
        Error { sqlstate: sqlstate.to_string(), message: message.into(), hint }
    }

    /// The same error with words put before its message.
    pub fn context(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}: {}", self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<LlmError> for Error {
    fn from(e: LlmError) -> Self {
        Error { sqlstate: e.sqlstate().to_string(), message: e.to_string(), hint: Some(e.hint().to_string()) }
    }
}

impl From<Refusal> for Error {
    fn from(r: Refusal) -> Self {
        Error { sqlstate: r.sqlstate().to_string(), message: r.to_string(), hint: Some(r.hint().to_string()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn each_source_keeps_its_sqlstate_and_hint() {
        let e: Error = Refusal::NotAQuery("DELETE".into()).into();
        assert_eq!((e.sqlstate.as_str(), e.message.as_str()), ("25006", "only read-only queries are accepted, got DELETE"));
        assert!(e.hint.unwrap().contains("read-only"));
        let e: Error = LlmError::Timeout { endpoint: "http://x/v1".into(), after: Duration::from_millis(5) }.into();
        assert_eq!(e.sqlstate, "57014");
        assert_eq!(Error::null("the question", "Pass a question.").sqlstate, "22004");
        assert_eq!(Error::invalid("x").context("option y").message, "option y: x");
    }
}
