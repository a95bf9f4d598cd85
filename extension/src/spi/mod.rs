//! The SPI adapter: everything that reads or writes the database.

pub mod audit;
pub mod catalog;
pub mod executor;
pub mod instance;
pub mod owner;
pub mod subtransaction;
