//! Application models that drive the file-system model ([`crate::fs`]) with the file
//! operations a real application issues: `sqlite` (Mobibench-like SQLite transactions).

pub mod sqlite;
