//! The SPI adapter: everything that reads or writes the database. [`database::SpiDatabase`] is
//! the database interface of the decision code; the other modules are its parts and nl2sql's own
//! tables (the audit log, the value index, the experts and examples).

pub mod audit;
pub mod catalog;
pub mod database;
pub mod executor;
pub mod experts;
pub mod instance;
pub mod owner;
pub mod subtransaction;
pub mod value_index;
