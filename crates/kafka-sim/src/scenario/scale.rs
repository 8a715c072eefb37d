//! The scale scenarios of issue 24, written in the documented format: 100
//! brokers; `partitions` partitions at RF 3 over 30 topics; 3 producers
//! writing 30,000 records each (bursts of 100 from 2 s on); `groups`
//! consumer groups of `members` members, every group subscribed to all 30
//! topics. Used by `examples/scale.rs` (CPU and memory, headless), the
//! `cluster` benchmark and the tests.
//!
//! [`one_topic`] is issue 46's hidden scenario, written again from its
//! description: the same cluster and producers, but one topic of 3,000
//! partitions and 40 groups of 40 all subscribed to it, run for 15 s.

/// The scenario's JSON.
pub fn scale(partitions: usize, groups: usize, members: usize) -> String {
    let topics = 30usize.min(partitions.max(1));
    // The first `partitions % topics` topics take one partition more.
    let topic_json: Vec<String> = (0..topics)
        .map(|t| {
            let n = partitions / topics + usize::from(t < partitions % topics);
            format!(r#"{{"name": "t{t}", "partitions": {n}, "replication.factor": 3}}"#)
        })
        .collect();
    let producers: Vec<String> = (0..3)
        .map(|p| format!(r#"{{"name": "p{p}", "config": {{"linger.ms": 5, "partitioner.ignore.keys": true}}}}"#))
        .collect();
    let mut cmds = Vec::new();
    for p in 0..3 {
        for burst in 0..300 {
            cmds.push(format!(
                r#"{{"at_ms": {}, "type": "produce", "producer": "p{p}", "topic": "t{}", "key": "k", "value": "{}", "count": 100}}"#,
                2000 + burst * 20 + p * 7,
                (burst as usize + p as usize) % topics,
                "x".repeat(90)
            ));
        }
    }
    let topic_names: Vec<String> = (0..topics).map(|t| format!("\"t{t}\"")).collect();
    let mut consumers = Vec::new();
    for g in 0..groups {
        for m in 0..members {
            consumers.push(format!(
                r#"{{"name": "g{g}-c{m}", "subscribe": [{}], "config": {{"group.id": "g{g}", "auto.offset.reset": "earliest"}}}}"#,
                topic_names.join(",")
            ));
        }
    }
    let brokers: Vec<String> = (0..100).map(|b| b.to_string()).collect();
    format!(
        r#"{{"seed": 1, "run_until_ms": 12000,
            "cluster": {{"brokers": [{}], "config": {{"offsets.topic.num.partitions": 50}}}},
            "topics": [{}],
            "producers": [{}],
            "consumers": [{}],
            "commands": [{}]}}"#,
        brokers.join(","),
        topic_json.join(","),
        producers.join(","),
        consumers.join(","),
        cmds.join(",")
    )
}

/// Issue 46's scenario: 100 brokers; one topic `t` of `partitions`
/// partitions at RF 3; three producers (`linger.ms` 5, keys ignored)
/// writing 30,000 records each in bursts of 100 from 2 s on; `groups`
/// groups of `members` consumers, default settings but
/// `auto.offset.reset=earliest`, every one subscribed to `t`; 15 s.
pub fn one_topic(partitions: usize, groups: usize, members: usize) -> String {
    let producers: Vec<String> = (0..3)
        .map(|p| format!(r#"{{"name": "p{p}", "config": {{"linger.ms": 5, "partitioner.ignore.keys": true}}}}"#))
        .collect();
    let mut cmds = Vec::new();
    for p in 0..3 {
        for burst in 0..300 {
            cmds.push(format!(
                r#"{{"at_ms": {}, "type": "produce", "producer": "p{p}", "topic": "t", "key": "k", "value": "{}", "count": 100}}"#,
                2000 + burst * 20 + p * 7,
                "x".repeat(90)
            ));
        }
    }
    let mut consumers = Vec::new();
    for g in 0..groups {
        for m in 0..members {
            consumers.push(format!(
                r#"{{"name": "g{g}-c{m}", "subscribe": ["t"], "config": {{"group.id": "g{g}", "auto.offset.reset": "earliest"}}}}"#
            ));
        }
    }
    let brokers: Vec<String> = (0..100).map(|b| b.to_string()).collect();
    format!(
        r#"{{"seed": 1, "run_until_ms": 15000,
            "cluster": {{"brokers": [{}]}},
            "topics": [{{"name": "t", "partitions": {partitions}, "replication.factor": 3}}],
            "producers": [{}],
            "consumers": [{}],
            "commands": [{}]}}"#,
        brokers.join(","),
        producers.join(","),
        consumers.join(","),
        cmds.join(",")
    )
}
