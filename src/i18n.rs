//! The page's own words, in English and 简体中文. Event captions come from
//! the engine (`kafka_sim::caption`).

pub use kafka_sim::Lang;

/// The page's words: (key, English, 简体中文), sorted by key (a test checks),
/// looked up by binary search.
const WORDS: &[(&str, &str, &str)] = &[
    ("accumulator", "RecordAccumulator: one deque of batches per partition", "消息累加器：每个分区一个批次双端队列"),
    ("act", "Act now:", "现在操作："),
    ("act_section", "Act on the cluster", "操作集群"),
    ("add_consumer", "add consumer", "添加消费者"),
    ("add_producer", "add producer", "添加生产者"),
    ("after", "after", "之后"),
    ("algorithm", "strategy", "策略"),
    ("alive", "alive", "存活"),
    ("ar_order", "AR order", "AR 顺序"),
    ("arrives_at", "arrives at", "到达时间"),
    ("assignor", "assignor", "分配策略"),
    ("back", "Step back", "上一步"),
    ("back_short", "Back", "后退"),
    ("batches", "Record batches in .log", ".log 中的消息批次"),
    ("before", "before", "之前"),
    ("blocked_records", "records blocked in send()", "条记录阻塞在 send()"),
    ("branched", "You acted: the timeline branches here and replays from your command.", "你进行了操作：时间线从此处分支，并从你的命令开始重放。"),
    ("broker", "broker", "broker"),
    ("broker_menu_hint", "Right-click, long-press or press Enter for its actions.", "右键、长按或按回车键打开操作菜单。"),
    ("bytes", "bytes", "字节"),
    ("challenge", "challenge: hide what happens until answered", "挑战：回答之前隐藏结果"),
    ("changed_nothing", "changed no state shown here (a message or a decision).", "没有改变这里显示的状态（一条消息或一个决定）。"),
    ("chapters", "Chapters", "章节"),
    ("chart_failures", "Failures and retries (per second)", "失败与重试（每秒）"),
    ("chart_isr", "ISR changes and unclean elections (per second, one-minute rate)", "ISR 变化与不干净选举（每秒，一分钟速率）"),
    ("chart_lag", "Consumer lag (records)", "消费者滞后（消息条数）"),
    ("chart_latency", "Client latencies (ms)", "客户端延迟（毫秒）"),
    ("chart_replication", "Replication health (partitions)", "副本健康（分区数）"),
    ("chart_throughput", "Throughput (records per second)", "吞吐量（每秒消息数）"),
    ("close_producer", "close producer", "关闭生产者"),
    ("cluster", "Cluster", "集群"),
    ("committed", "Committed offsets", "已提交位移"),
    ("compare_held", "What each assignor would do is hidden while a question is open: it would give the answer away. Answer first.", "有问题待回答时，各分配策略的对比结果先隐藏：它会泄露答案。请先作答。"),
    ("compare_if_leaves", "The four assignors side by side — if this member leaves:", "四种分配策略对比 —— 若该成员离开："),
    ("config", "Configuration (Kafka's names)", "配置（Kafka 的参数名）"),
    ("config_apply", "Apply and restart", "应用并重新开始"),
    ("config_hint", "Empty means Kafka's default (shown greyed). Applying restarts the scenario from the beginning.", "留空即使用 Kafka 默认值（灰色显示）。应用后场景从头开始。"),
    ("consumer", "consumer", "消费者"),
    ("continue", "Continue", "继续"),
    ("continue_hint", "plays to the next explanation or question and stops there; Step (→) goes one event at a time.", "播放到下一段讲解或下一个问题并停下；“下一步”（→）每次前进一个事件。"),
    ("control_batch", "control batch", "控制批次"),
    ("controller", "controller", "控制器"),
    ("coordinator", "coordinator", "协调者"),
    ("count", "count", "条数"),
    ("crash", "crash", "崩溃"),
    ("crc_invalid", "✗ INVALID", "✗ 无效"),
    ("crc_valid", "✓ valid", "✓ 有效"),
    ("cut", "cut link", "断开链路"),
    ("cut_link_to", "Cut the link to", "断开链路至"),
    ("cut_this_link", "Cut this link", "断开这条链路"),
    ("deques_empty", "Every deque is empty.", "所有队列都是空的。"),
    ("describe_groups", "kafka-consumer-groups --describe: the groups as the admin tool prints them now", "kafka-consumer-groups --describe：管理工具此刻打印的消费者组"),
    ("describe_groups_hint", "LOG-END-OFFSET is what ListOffsets answers a consumer: the partition's high watermark, not its log end offset. LAG = that − CURRENT-OFFSET (the committed offset).", "LOG-END-OFFSET 是 ListOffsets 回答消费者的值：分区的高水位，而不是日志末端位移。LAG = 它 − CURRENT-OFFSET（已提交位移）。"),
    ("describe_topics", "kafka-topics --describe: the cluster as the admin tool prints it now", "kafka-topics --describe：管理工具此刻打印的集群"),
    ("describe_topics_hint", "Leader, Replicas (AR, preferred leader first) and Isr, as the controller last wrote them in ZooKeeper. Elr is KRaft's (KIP-966): N/A with ZooKeeper.", "leader、副本（AR，首选 leader 在前）和 ISR 取自控制器最近写入 ZooKeeper 的状态。最后两列只属于 KRaft（KIP-966），在 ZooKeeper 模式下为 N/A。"),
    ("dir", "directory", "目录"),
    ("dismiss", "Dismiss", "关闭"),
    ("down", "down", "宕机"),
    ("download", "Download", "下载"),
    ("election", "Latest leader election", "最近一次 leader 选举"),
    ("election_held", "The previous election is hidden while a question asks about the next one. Answer first.", "有问题在问下一次选举时，上一次选举先隐藏。请先作答。"),
    ("embed_code", "Embed in a page:", "嵌入网页："),
    ("entry", "entry", "索引项"),
    ("event", "event", "事件"),
    ("examples", "Example:", "示例："),
    ("examples_title", "Examples", "示例"),
    ("export", "Export:", "导出："),
    ("export_png", "this view (.png)", "当前视图（.png）"),
    ("export_scenario", "scenario (.json)", "场景（.json）"),
    ("export_svg", "this view (.svg)", "当前视图（.svg）"),
    ("export_trace", "trace (.json)", "事件记录（.json）"),
    ("field", "field", "字段"),
    ("fig_active_from", "active segment from offset", "活跃段起始位移"),
    ("fig_brokers", "brokers", "broker"),
    ("fig_died_leader", "the leader, died", "原 leader，已宕机"),
    ("fig_group", "group", "消费者组"),
    ("fig_label", "The question, drawn: click an element to answer", "题目图示：点击图中元素作答"),
    ("fig_leader_mark", " (leader)", "（leader）"),
    ("fig_log_end", "log end", "日志末端"),
    ("fig_member", "member", "成员"),
    ("fig_newest", "newest", "最新记录"),
    ("fig_no", "no", "否"),
    ("fig_none", "none", "无"),
    ("fig_none_offline", "none: the partition goes offline", "无：分区下线"),
    ("fig_now", "check at", "检查时间"),
    ("fig_partition", "partition", "分区"),
    ("fig_partitions", "partitions", "分区"),
    ("fig_replica", "replica", "副本"),
    ("fig_segment_start", "segment start", "段起点"),
    ("fig_subscribes", "subscribes to", "订阅"),
    ("fig_target", "looking for offset", "查找位移"),
    ("fig_txn_legend", "p1, p2: records of transactional producers 1 and 2 · —: a plain record · COMMIT, ABORT: markers", "p1、p2：事务生产者 1 和 2 的消息 · —：普通消息 · COMMIT、ABORT：事务标记"),
    ("fig_yes", "yes", "是"),
    ("file", "file", "文件"),
    ("files", "Segment files (paged store)", "段文件（分页存储）"),
    ("follower", "follower", "follower"),
    ("force_close_hint", "abort every batch not yet answered, even those in flight", "放弃所有尚未得到响应的批次，包括在途的"),
    ("force_close_producer", "close(0)", "close(0)"),
    ("free_play", "Free play", "自由探索"),
    ("free_play_go", "Open a three-broker cluster to explore on your own", "打开一个三 broker 集群，自由探索"),
    ("free_play_hint", "Nothing is scheduled to fail. Press Play or Step to run it. Right-click, long-press or press Enter on a broker to kill or shut it down, on producer p to send a record, on a link between two nodes to cut it; Tools has the rest. Each action branches the timeline at this step.", "没有安排任何故障。按“播放”或“单步”运行。在 broker 上右键、长按或按 Enter 可以杀死或关闭它，在生产者 p 上可以发送一条消息，在两个节点之间的连线上可以切断它；其余操作在“工具”中。每个操作都会在当前步骤分叉时间线。"),
    ("generation", "generation", "代"),
    ("goal", "Goal:", "目标："),
    ("group_lag", "LAG (kafka-consumer-groups: log end offset − committed offset)", "LAG（kafka-consumer-groups：日志末端位移 − 已提交位移）"),
    ("heal", "heal", "恢复"),
    ("heal_link_to", "Heal the link to", "恢复链路至"),
    ("heal_this_link", "Heal this link", "恢复这条链路"),
    ("hex_view", ".log bytes, field by field", ".log 字节（逐字段）"),
    ("hide_routine", "Hide routine events", "隐藏例行事件"),
    ("home", "Start", "开始页"),
    ("in_flight", "In-flight requests", "在途请求"),
    ("in_isr", "in ISR", "在 ISR 中"),
    ("in_rack", "with a replica in its client.rack", "副本在其 client.rack 内"),
    ("in_rack_hint", "KIP-881: with client.rack, the Range assignor prefers partitions with a replica in the consumer's rack (zone), within its fair share.", "KIP-881：设置 client.rack 后，Range 分配策略在公平份额之内优先分配在该消费者机架（可用区）内有副本的分区。"),
    ("index_entries", "Sparse index entries", "稀疏索引项"),
    ("jump", "Jump to the next", "跳到下一个"),
    ("kept", "The current scenario is unchanged.", "当前场景保持不变。"),
    ("key", "key", "key"),
    ("kill", "kill", "强制停止"),
    ("kill_hint", "Kill it (kill -9: no controlled shutdown)", "强制停止（kill -9：不做受控关闭）"),
    ("lag", "lag", "滞后"),
    ("lang", "中文", "English"),
    ("leader", "leader", "leader"),
    ("leaders_per_broker", "leaders", "leader 数"),
    ("lesson", "Lesson", "课程"),
    ("lessons", "Lesson:", "课程："),
    ("lessons_in_order", "Lessons, in the order of the course notes", "课程，按笔记顺序"),
    ("lessons_loading", "Reading the lesson list…", "正在读取课程列表…"),
    ("link", "link", "链路"),
    ("link_cut", "Cut link", "已断开的链路"),
    ("link_title", "Link", "链路"),
    ("load", "Load scenario…", "载入场景…"),
    ("load_failed", "This scenario cannot be loaded:", "无法载入该场景："),
    ("log", "Event log", "事件日志"),
    ("log_keys", "Event log: Up and Down move between events, Enter goes to one", "事件日志：上下方向键在事件间移动，回车跳转到该事件"),
    ("log_start", "log start", "日志起始位移"),
    ("lookup_by", "Look up by", "查找方式"),
    ("lookup_hint", "(becomes a command at this step; then step → to watch each probe)", "（在当前步骤变为一条命令；然后按 → 逐步观看每次探查）"),
    ("lookup_of", "Lookup of", "查找"),
    ("lookup_pic_from", "scanned from position", "从位置开始扫描："),
    ("lookup_pic_index", "2. Sparse index of", "2. 稀疏索引"),
    ("lookup_pic_label", "The lookup drawn: segments, the index's binary search, the scan of the log", "查找过程图：日志段、索引的二分查找、日志扫描"),
    ("lookup_pic_log", "3. Batches of", "3. 消息批次"),
    ("lookup_pic_no_entries", "No entry yet: the scan starts at position 0.", "还没有索引项：从位置 0 开始扫描。"),
    ("lookup_pic_segments", "1. Segments by base offset: binary search (lo … hi, middle outlined)", "1. 按基准位移排列的日志段：二分查找（下界 … 上界，中间项加框）"),
    ("lookup_run", "Look up", "查找"),
    ("lookup_value", "Offset or timestamp to look up", "要查找的位移或时间戳"),
    ("message_detail", "message in flight", "在途消息"),
    ("metrics_attribute", "attribute", "属性"),
    ("metrics_chart_keys", "Click a point, or press ← / → here, to go to that moment.", "点击某个点，或在此按 ← / →，跳到那个时刻。"),
    ("metrics_hint", "Kafka's own metrics under their JMX names, computed from this run: the dials an operator watches. Broker metrics are per broker; a stopped broker reports nothing.", "Kafka 自己的指标，使用它们的 JMX 名称，由本次运行计算得出：运维人员盯着的仪表盘。broker 指标按 broker 分别统计；已停止的 broker 不上报任何指标。"),
    ("metrics_max", "largest", "最大值"),
    ("metrics_moved_none", "Step to see what each event moves.", "单步执行，查看每个事件改变了哪些指标。"),
    ("metrics_moved_nothing", "No metric moved.", "没有指标发生变化。"),
    ("metrics_node", "process", "进程"),
    ("metrics_sum", "sum", "总和"),
    ("metrics_table", "Every metric now", "当前所有指标"),
    ("metrics_value", "value", "值"),
    ("more", "more", "项未显示"),
    ("more_bytes", "more bytes", "字节未显示"),
    ("moved", "partitions that move (of members who stay)", "留下成员被移动的分区数"),
    ("msgs_undrawn", "more messages in flight, not drawn", "条在途消息未画出"),
    ("new_producer_title", "new KafkaProducer(props)", "创建 KafkaProducer(props)"),
    ("next", "Next ↦", "下一个 ↦"),
    ("next_lesson", "Next lesson:", "下一课："),
    ("next_sequence", "Next sequence number per partition", "每个分区的下一个序列号"),
    ("no_actions", "Nothing can be done to it now.", "现在无法对它操作。"),
    ("no_events", "Press Step (→) to begin.", "按“下一步”（→）开始。"),
    ("no_group_messages", "No group-protocol message has been sent yet.", "尚未发送任何消费者组协议消息。"),
    ("no_groups", "No consumer in this scenario belongs to a group.", "本场景中没有属于消费者组的消费者。"),
    ("no_logs", "No partition has a log yet: step forward.", "还没有分区日志：请继续前进。"),
    ("no_producers", "This scenario has no producer.", "该场景没有生产者。"),
    ("no_record_yet", "No record sent yet.", "还没有发送记录。"),
    ("none_in_flight", "No request in flight.", "没有在途请求。"),
    ("not_started", "not started", "未启动"),
    ("of", "of", "/"),
    ("offset", "offset", "位移"),
    ("open_section", "Open", "打开"),
    ("out_of_isr", "out of the ISR", "不在 ISR 中"),
    ("own_view_lags", "not yet told: its own copy still says", "尚未收到更新：它自己的副本状态仍为"),
    ("owns", "owns", "拥有分区"),
    ("pages", "4 KiB pages", "4 KiB 页"),
    ("partition", "partition", "分区"),
    ("partition_dir", "Partition directory:", "分区目录："),
    ("passed_dead", "passed over: not alive", "跳过：未存活"),
    ("passed_isr", "passed over: not in the ISR", "跳过：不在 ISR 中"),
    ("pause", "Pause", "暂停"),
    ("phase", "phase", "阶段"),
    ("phase_joining", "joining", "加入中"),
    ("phase_stable", "stable", "稳定"),
    ("phase_stopped", "stopped (last known state)", "已停止（最后已知状态）"),
    ("phase_syncing", "syncing", "同步中"),
    ("phase_unjoined", "unjoined", "未加入"),
    ("pipeline", "The producer pipeline", "生产者发送流程"),
    ("placement_held", "Leaders and preferred replicas are hidden while a question asks who the election chooses. Answer first.", "有问题在问选举结果时，各分区的 leader 和优先副本先隐藏。请先作答。"),
    ("placement_hint", "L: leader, F: follower in the ISR, –: out of the ISR; the number is the replica's place in the assigned replicas (1: the preferred leader).", "L：leader，F：ISR 中的 follower，–：不在 ISR 中；数字是该副本在分配副本列表（AR）中的位置（1：优先副本）。"),
    ("placement_title", "Placement: which broker holds each partition", "副本分配：每个分区在哪些 broker 上"),
    ("play", "Play", "播放"),
    ("playback", "Playback", "播放"),
    ("position", "position", "位置"),
    ("practice_kind", "Question:", "题型："),
    ("practice_level", "Level:", "难度："),
    ("practice_next", "Next question", "下一题"),
    ("predict", "Predict:", "预测："),
    ("preferred", "preferred", "优先副本"),
    ("problem", "That did not work:", "操作未完成："),
    ("producer", "producer", "生产者"),
    ("producer_closed", "closed", "已关闭"),
    ("producer_closing", "close() called: sending what is left", "已调用 close()：正在发送剩余批次"),
    ("projector", "Projector", "投影模式"),
    ("rack", "rack", "机架"),
    ("recap", "Recap:", "小结："),
    ("record", "Record", "记录"),
    ("records", "records", "消息"),
    ("records_lag", "records-lag", "records-lag"),
    ("records_lag_hint", "The consumer's own metric: high watermark − its position (not the group's LAG, which counts from the committed offset)", "消费者自己的指标：高水位 − 它的当前位置（不同于消费者组的 LAG，后者从已提交位移算起）"),
    ("replicas_per_broker", "replicas", "副本数"),
    ("restart", "restart", "重启"),
    ("restart_hint", "Restart it", "重启"),
    ("result", "leader", "leader"),
    ("revoked_first", "revoked in round 1", "第一轮撤销"),
    ("right", "Right!", "答对了！"),
    ("rule", "rule", "规则"),
    ("said_earlier", "Earlier:", "此前："),
    ("seek_to", "Go to event", "跳到事件"),
    ("segment", "segment", "日志段"),
    ("send", "send()", "send()"),
    ("send_to", "Send a record to", "发送一条消息到"),
    ("sent_at", "sent at", "发送时间"),
    ("sequence", "The group protocol, message by message (latest at the bottom)", "消费者组协议，逐条消息（最新在下）"),
    ("settings", "Settings", "配置"),
    ("setup", "Setup:", "场景："),
    ("share", "Share link", "分享链接"),
    ("share_done", "This link opens exactly here (it is also in the address bar):", "此链接可打开当前位置（也已放入地址栏）："),
    ("share_hint", "A link that opens this scenario at this step and view", "打开本场景、本步骤与本视图的链接"),
    ("share_section", "Share and export", "分享与导出"),
    ("shortcuts", "Keyboard shortcuts", "键盘快捷键"),
    ("show_heartbeats", "show heartbeats", "显示心跳"),
    ("show_hex", "Show in hex: position", "以十六进制显示：位置"),
    ("shutdown", "shut down", "受控关闭"),
    ("shutdown_hint", "Shut it down (controlled shutdown: leaders move first)", "关闭（受控关闭：先迁移 leader）"),
    ("shutting_down", " (shutting down)", "（正在关闭）"),
    ("size", "size", "字节数"),
    ("skip", "Skip to the drawing", "跳到图示"),
    ("slot", "slot", "槽位"),
    ("speed", "Speed", "速度"),
    ("st_accumulator", "RecordAccumulator", "消息累加器"),
    ("st_ack", "Acknowledged", "已确认"),
    ("st_interceptor", "Interceptors", "拦截器"),
    ("st_partitioner", "Partitioner", "分区器"),
    ("st_sender", "Sender", "Sender 线程"),
    ("st_serializer", "Serializer", "序列化器"),
    ("start", "To start", "回到开头"),
    ("start_lead", "Apache Kafka 3.9's brokers, replication, storage, producers and consumer groups run in this page, one event at a time. Pause, step back, and predict what Kafka does next.", "Apache Kafka 3.9 的 broker、副本同步、存储、生产者和消费者组在本页中逐事件运行。你可以暂停、后退，并预测 Kafka 下一步会做什么。"),
    ("start_question", "What do you want to learn?", "你想学什么？"),
    ("state", "state", "状态"),
    ("step", "Step", "下一步"),
    ("stop", "close()", "close()"),
    ("stopped_early", "The simulation stopped here, before the scenario's end: ", "模拟在场景结束之前于此停止："),
    (
        "subtitle",
        "Apache Kafka 3.9 (ZooKeeper controller), simulated in your browser, one event at a time",
            "在浏览器中逐事件模拟 Apache Kafka 3.9（ZooKeeper 控制器）",
    ),
    ("time", "time", "时间"),
    ("timeline", "Timeline: drag to any step", "时间线：拖动到任意一步"),
    ("timestamp", "timestamp", "时间戳"),
    ("title", "Kafka Visualiser", "Kafka 可视化"),
    ("tools", "Tools", "工具"),
    ("topic", "topic", "主题"),
    ("transactional_batch", "transactional", "事务"),
    ("transactions", "Transactions (exactly-once)", "事务（精确一次）"),
    ("truncated_cell", "removed by the last truncation, not written again yet", "被最近一次截断删除，尚未重新写入"),
    ("txn_coordinator", "transaction coordinator", "事务协调者"),
    ("txn_held", "The coordinator's state diagram and the partitions' offsets are hidden while a question is open: they would give the answer away. Answer first.", "有问题待回答时，协调者的状态图和各分区的位移先隐藏：它们会泄露答案。请先作答。"),
    ("txn_index_entries", "Aborted transactions (.txnindex): what a read_committed fetch skips", "已中止事务（.txnindex）：read_committed 拉取时跳过的部分"),
    ("txn_lso_note", "read_committed reads only below the LSO: the first offset of the oldest open transaction, else the HW. Markers are never handed to the application.", "read_committed 只读取 LSO 之前的消息：LSO 是最早未完成事务的第一条位移，否则等于 HW。事务标记从不交给应用。"),
    ("txn_marker_in_flight", "WriteTxnMarkers in flight", "WriteTxnMarkers 在途"),
    ("txn_markers_done", "every marker written, writing the complete state", "标记已全部写入，正在写入完成状态"),
    ("txn_markers_pending", "Markers still to write", "待写入的事务标记"),
    ("txn_offsets", "LEO, HW and LSO on each partition's leader", "各分区 leader 上的 LEO、HW 和 LSO"),
    ("txn_open", "open transactions", "未完成事务"),
    ("txn_partitions", "partitions in the transaction", "事务中的分区"),
    ("value", "value", "value"),
    ("verdict", "verdict", "结论"),
    ("view_cluster", "Cluster", "集群"),
    ("view_groups", "Consumer groups", "消费者组"),
    ("view_metrics", "Metrics", "指标"),
    ("view_practice", "Practice", "练习"),
    ("view_producer", "Producer", "生产者"),
    ("view_storage", "Storage", "存储"),
    ("views", "Views", "视图"),
    ("winner", "elected", "当选"),
    ("wrong", "Not quite.", "不对。"),
    ("you", "you", "你"),
    ("zk_tree", "ZooKeeper: the znodes the brokers and the controller wrote", "ZooKeeper：broker 与控制器写入的 znode"),
];

/// A UI string in `lang`.
/// Text the engine made (a request's summary, a reason) in `lang`: in 中文,
/// with its English phrases translated (`kafka_sim::caption::zh`).
pub fn engine_text(lang: Lang, text: &str) -> String {
    match lang {
        Lang::En => text.to_string(),
        Lang::Zh => kafka_sim::caption::zh::translate(text),
    }
}

/// Every word of the page: (key, English, 简体中文).
pub fn all_words() -> &'static [(&'static str, &'static str, &'static str)] {
    WORDS
}

pub fn t(lang: Lang, key: &str) -> &'static str {
    let (en, zh) = WORDS
        .binary_search_by(|(k, _, _)| (*k).cmp(key))
        .map(|i| (WORDS[i].1, WORDS[i].2))
        .unwrap_or(("?", "?"));
    match lang {
        Lang::En => en,
        Lang::Zh => zh,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_are_sorted_once_each_for_the_binary_search() {
        assert!(WORDS.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(t(Lang::En, "play"), "Play");
        assert_eq!(t(Lang::Zh, "play"), "播放");
        assert_eq!(t(Lang::En, "no such key"), "?");
    }

    /// Every `t(lang, "key")` in the page's source names a key in WORDS.
    #[test]
    fn every_key_the_page_asks_for_is_there_in_both_languages() {
        fn sources(dir: &std::path::Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    sources(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(std::fs::read_to_string(&p).unwrap());
                }
            }
        }
        let mut files = Vec::new();
        sources(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut asked = 0;
        for text in &files {
            for (i, _) in text
                .match_indices("t(lang, \"")
                .chain(text.match_indices("t(l, \""))
            {
                let rest = &text[i..];
                let key = rest.split('"').nth(1).unwrap();
                asked += 1;
                assert_ne!(t(Lang::En, key), "?", "no English for {key}");
                assert_ne!(t(Lang::Zh, key), "?", "no Chinese for {key}");
            }
        }
        assert!(asked > 100, "{asked}");
    }
}
