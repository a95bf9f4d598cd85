//! The two interfaces through which the decisions reach the world: the database and the model.
//!
//! The ask pipeline ([`crate::ask::pipeline`]) and selection ([`crate::select::choose`]) decide
//! everything over these traits and plain data. The extension implements them over SPI and the
//! HTTP model client; tests implement them with scripted answers; the benchmark implements the
//! part the separating-instance search needs over libpq. No SPI or HTTP type appears here.
//!
//! The database is layered by what a caller needs: [`Executor`] runs read-only SQL safely,
//! [`Instances`] adds the separating-instance workspace, [`Database`] adds the catalog, the value
//! index, the experts' weights, the verified examples and the glossary.

use std::collections::BTreeMap;

use sqlparser::ast::ObjectName;

use crate::catalog::{Catalog, RelName};
use crate::error::Result;
use crate::ground::taught::{Example, Term};
use crate::ground::values::ValueMatch;
use crate::llm::{ChatReply, ChatRequest, Embeddings, LlmError};
use crate::result::Outcome;
use crate::select::separate::{Report, Workspace};
use crate::sql::Refusal;

/// The safe executor: the only way generated SQL runs.
pub trait Executor {
    /// Check `sql` (exactly one read-only query) and run it as the caller: read-only, in a
    /// rolled-back subtransaction, bounded in time, at most `max_rows` rows (never more than the
    /// server's limit). A refusal is returned, not raised; a failure is an [`Outcome::Failed`].
    fn run(&mut self, sql: &str, max_rows: usize) -> std::result::Result<Outcome, Refusal>;
}

/// Where separating instances are built.
pub trait Instances: Executor {
    /// The table a name in a query resolves to (with the caller's search path); an error for a
    /// view, a partitioned table or an unknown name.
    fn resolve_table(&mut self, name: &ObjectName) -> std::result::Result<RelName, String>;

    /// The name of instance table `i`, which the candidates are redirected to.
    fn instance_table(&self, i: usize) -> ObjectName;

    /// Create instance tables mirroring `relations` (instance table `i` mirrors `relations[i]`),
    /// and call `search` with a workspace over them in which `sides` are the two candidates
    /// redirected to the instance tables; nothing of it survives the call, whatever happens.
    fn instance_space(
        &mut self,
        relations: &[RelName],
        sides: [String; 2],
        max_rows: usize,
        search: &mut dyn FnMut(&mut dyn Workspace) -> std::result::Result<Report, String>,
    ) -> std::result::Result<Report, String>;
}

/// One search of the value index: a term, its embedding.
#[derive(Debug, Clone)]
pub struct ValueSearch {
    pub term: String,
    /// The term's embedding; empty: the term is searched by trigrams only.
    pub embedding: Vec<f32>,
    /// Search only the values of these schemas (empty: every schema). A question asked of a few
    /// schemas of many searches theirs, so the nearest values of other schemas do not crowd
    /// them out of the index's first hundred.
    pub schemas: Vec<String>,
}

/// Everything the ask pipeline and selection read from the database.
pub trait Database: Instances {
    /// Check `sql` and ask PostgreSQL to plan it (`EXPLAIN`), without running it.
    fn plan(&mut self, sql: &str) -> std::result::Result<Outcome, Refusal>;

    /// The schema the caller can see: relations they can SELECT, visible columns, keys, foreign keys.
    fn catalog(&mut self) -> Result<Catalog>;

    /// Whether any column of `tables` is in the value index.
    fn indexed_any(&mut self, tables: &[RelName]) -> Result<bool>;

    /// The value index's nearest values to each search, by embedding and by trigrams, unfiltered:
    /// [`crate::ground::values::search`] keeps those the caller may see.
    fn value_candidates(&mut self, searches: &[ValueSearch]) -> Result<Vec<ValueMatch>>;

    /// The experts' weights (an expert not recorded yet weighs 1).
    fn expert_weights(&mut self) -> Result<BTreeMap<String, f64>>;

    /// How many verified examples are stored (with none, no embedding is computed to search them).
    fn example_count(&mut self) -> Result<usize>;

    /// Verified question/SQL examples nearest to an embedding of a masked question, nearest first,
    /// unfiltered: [`crate::ground::taught::select`] keeps those the caller may see.
    fn nearest_examples(&mut self, embedding: &[f32], limit: usize) -> Result<Vec<Example>>;

    /// The glossary: every term, unfiltered ([`crate::ground::taught::select`] keeps those the
    /// question mentions and the caller may see).
    fn glossary(&mut self) -> Result<Vec<Term>>;

    /// Embeddings of short texts (the words of schema names) stored earlier by `model`, by text;
    /// a text not stored is absent.
    fn stored_embeddings(&mut self, texts: &[String], model: &str) -> Result<std::collections::BTreeMap<String, Vec<f32>>>;

    /// Store embeddings of short texts by `model`, for later calls. Where nothing can be written
    /// (a hot standby) it stores nothing and says so with an error the caller may ignore.
    fn store_embeddings(&mut self, entries: &[(String, Vec<f32>)], model: &str) -> Result<()>;
}

/// The model server.
pub trait Model {
    /// The chat model's name (experts are named `generator:model`).
    fn name(&self) -> String;

    /// The embedding model's name (stored embeddings are kept per model).
    fn embedding_model(&self) -> String;

    /// How many requests [`Model::chat_all`] has in flight at once.
    fn concurrency(&self) -> usize;

    /// One chat completion.
    fn chat(&mut self, request: ChatRequest) -> std::result::Result<ChatReply, LlmError>;

    /// Several chat completions, sent together as far as the endpoint allows; in request order,
    /// each a reply or its own error.
    fn chat_all(&mut self, requests: Vec<ChatRequest>) -> Vec<std::result::Result<ChatReply, LlmError>>;

    /// Embeddings of each input, in input order.
    fn embed(&mut self, inputs: &[String]) -> std::result::Result<Embeddings, LlmError>;
}
