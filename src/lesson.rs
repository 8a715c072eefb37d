//! Guided lessons: the model is the engine's (`kafka_sim::lesson`), so the
//! page and the CLI accept the same lessons.
pub use kafka_sim::lesson::*;
pub use kafka_sim::lesson_check::*;
