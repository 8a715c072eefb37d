//! # kafka-sim
//!
//! A deterministic, seeded, sans-IO simulation of Apache Kafka.
pub mod config;
pub mod ids;
pub mod rng;
pub mod storage;
