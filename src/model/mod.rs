//! The view models: small structs read off the world at the cursor, pure
//! (no browser), tested natively. Components draw only these; the UI
//! computes no Kafka behaviour.

pub mod cluster;
pub mod diff;
pub mod inspect;
pub mod producer;
pub mod txn;
