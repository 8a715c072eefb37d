//! Scenarios the performance measurements share (the wasm-bindgen perf test
//! and the built-page test), so both measure the same thing.

/// 10 brokers, 1,000 partitions (RF 3), a producer writing across them;
/// with `shutdown`, broker 4 is shut down at 3.5 s.
pub fn big_cluster(shutdown: bool) -> String {
    let brokers: Vec<String> = (0..10).map(|b| b.to_string()).collect();
    let cmds: Vec<String> = (0..50)
        .map(|i| format!(r#"{{"at_ms": {}, "type": "produce", "producer": "p", "topic": "t", "key": "k{i}", "value": "v", "count": 20}}"#, 1000 + i * 20))
        .chain(shutdown.then(|| {
            r#"{"at_ms": 3500, "type": "shutdown_broker", "broker": 4}"#.to_string()
        }))
        .collect();
    format!(
        r#"{{"seed": 1, "run_until_ms": 5000, "cluster": {{"brokers": [{}]}},
            "topics": [{{"name": "t", "partitions": 1000, "replication.factor": 3}}],
            "producers": [{{"name": "p"}}], "commands": [{}]}}"#,
        brokers.join(","),
        cmds.join(",")
    )
}

/// 10 brokers 400 ms apart, 72 producers each sending to 10 keys at once:
/// hundreds of Produce requests and replica fetches on the wire together.
pub fn message_burst() -> String {
    let brokers: Vec<String> = (0..10).map(|b| b.to_string()).collect();
    let producers: Vec<String> = (0..72)
        .map(|i| format!(r#"{{"name": "p{i}", "config": {{"linger.ms": 0}}}}"#))
        .collect();
    let cmds: Vec<String> = (0..72)
        .flat_map(|p| {
            (0..10).map(move |k| {
                format!(r#"{{"at_ms": 2000, "type": "produce", "producer": "p{p}", "topic": "t", "key": "k{k}-{p}", "value": "v", "count": 3}}"#)
            })
        })
        .collect();
    format!(
        r#"{{"seed": 1, "run_until_ms": 6000,
            "cluster": {{"brokers": [{}], "network": {{"latency_ms": 400}}}},
            "topics": [{{"name": "t", "partitions": 100, "replication.factor": 3}}],
            "producers": [{}], "commands": [{}]}}"#,
        brokers.join(","),
        producers.join(","),
        cmds.join(",")
    )
}
