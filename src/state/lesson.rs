//! Guided lessons: the model is the engine's (`kafka_sim::lesson`), so the
//! page and the CLI accept the same lessons.
pub use kafka_sim::lesson::*;
pub use kafka_sim::lesson_check::*;

/// The engine's answer to a question about event `target`: a field of that
/// event, or a metric read in the world right after it.
pub fn answer_at(player: &mut crate::player::Player, target: u64, answer: &str) -> Option<String> {
    if is_metric(answer) {
        metric_truth(&player.state_at(target + 1), answer)
    } else {
        truth(player.event(target)?, answer)
    }
}
