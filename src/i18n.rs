//! The page's own words, in English and 简体中文. Event captions come from
//! the engine (`kafka_sim::caption`).

pub use kafka_sim::Lang;

/// A UI string in `lang`.
pub fn t(lang: Lang, key: &str) -> &'static str {
    let (en, zh) = match key {
        "title" => ("Kafka Visualiser", "Kafka 可视化"),
        "subtitle" => (
            "Apache Kafka 3.9 (ZooKeeper controller), simulated in your browser, one event at a time",
            "在浏览器中逐事件模拟 Apache Kafka 3.9（ZooKeeper 控制器）",
        ),
        "play" => ("Play", "播放"),
        "pause" => ("Pause", "暂停"),
        "step" => ("Step", "下一步"),
        "back" => ("Step back", "上一步"),
        "start" => ("To start", "回到开头"),
        "event" => ("event", "事件"),
        "of" => ("of", "/"),
        "log" => ("Event log", "事件日志"),
        "cluster" => ("Cluster", "集群"),
        "controller" => ("controller", "控制器"),
        "down" => ("down", "宕机"),
        "not_started" => ("not started", "未启动"),
        "leader" => ("leader", "leader"),
        "follower" => ("follower", "follower"),
        "lang" => ("中文", "English"),
        "hide_routine" => ("Hide routine events", "隐藏例行事件"),
        "speed" => ("Speed", "速度"),
        "no_events" => ("Press Step (→) to begin.", "按“下一步”（→）开始。"),
        "time" => ("time", "时间"),
        "load" => ("Load scenario…", "载入场景…"),
        "load_failed" => ("This scenario cannot be loaded:", "无法载入该场景："),
        "kept" => ("The current scenario is unchanged.", "当前场景保持不变。"),
        "dismiss" => ("Dismiss", "关闭"),
        _ => ("?", "?"),
    };
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}
