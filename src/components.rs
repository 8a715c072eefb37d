//! Small function components: data and callbacks in, HTML/SVG out.

pub mod act;
pub mod cluster;
pub mod config;
pub mod controls;
pub mod describe;
pub mod election;
pub mod event_log;
pub mod explore;
pub mod groups;
pub mod metrics;
pub mod placement;
pub mod planes;
pub mod practice;
pub mod producer;
pub mod sequence;
pub mod start;
pub mod storage;
pub mod transactions;
pub mod zk_tree;
