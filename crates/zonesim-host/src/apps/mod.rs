//! Application models that drive a file-system model with the file operations a real
//! application issues: `sqlite` (Mobibench-like SQLite transactions) and `innodb` (MySQL's
//! storage engine under `sysbench` OLTP). `files` is the file interface the InnoDB model
//! speaks, so it runs on any file-system model that implements it.

pub mod files;
pub mod innodb;
pub mod sqlite;
pub mod sysbench;
