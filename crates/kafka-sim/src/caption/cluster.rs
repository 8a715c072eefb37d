//! Captions of the events about ZooKeeper, the controller, topics and reassignment.

use super::*;

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        // A command of the scenario's script: the page captions the
        // learner's own commands as theirs (it knows which it added).
        CommandIssued { command, .. } => {
            if en {
                format!("Scenario: {}", command_text(command, l))
            } else {
                format!("场景：{}", command_text(command, l))
            }
        }
        CommandRejected { reason, .. } => {
            if en {
                format!("Command not carried out: {reason}")
            } else {
                format!("命令未执行：{reason}")
            }
        }
        BrokerStarted {
            broker,
            incarnation,
            recovered_logs,
        } => {
            if en {
                if *incarnation > 1 {
                    format!("Broker {broker} restarted and recovered {recovered_logs} partition logs from disk")
                } else {
                    format!("Broker {broker} started")
                }
            } else if *incarnation > 1 {
                format!("Broker {broker} 重启，从磁盘恢复了 {recovered_logs} 个分区日志")
            } else {
                format!("Broker {broker} 启动")
            }
        }
        ControlledShutdownRetried {
            broker,
            attempt,
            max_retries,
            error,
            partitions_remaining,
            backoff_ms,
        } => {
            let left = tp_names(partitions_remaining);
            let why_en = match error {
                Some(e) => format!("the controller answered {}", e.name()),
                None => format!("the controller could not move {left}"),
            };
            let why_zh = match error {
                Some(e) => format!("controller 返回 {}", e.name()),
                None => format!("controller 无法迁移 {left}"),
            };
            if en {
                format!(
                    "Broker {broker}'s controlled shutdown, attempt {attempt} of {max_retries}: {why_en}; it asks again in {backoff_ms} ms (controlled.shutdown.retry.backoff.ms)"
                )
            } else {
                format!(
                    "Broker {broker} 受控关闭第 {attempt}/{max_retries} 次尝试：{why_zh}；{backoff_ms} ms 后再次请求（controlled.shutdown.retry.backoff.ms）"
                )
            }
        }
        ControlledShutdownGaveUp {
            broker,
            attempts,
            partitions_remaining,
        } => {
            let left = tp_names(partitions_remaining);
            let s = if *attempts == 1 { "" } else { "s" };
            match (en, partitions_remaining.is_empty()) {
                (true, true) => format!(
                    "Broker {broker} gave up after {attempts} controlled shutdown attempt{s} (controlled.shutdown.max.retries) and stops anyway"
                ),
                (true, false) => format!(
                    "Broker {broker} gave up after {attempts} controlled shutdown attempt{s} (controlled.shutdown.max.retries) and stops anyway, still leading {left}"
                ),
                (false, true) => format!(
                    "Broker {broker} 受控关闭尝试 {attempts} 次后放弃（controlled.shutdown.max.retries），仍然停止"
                ),
                (false, false) => format!(
                    "Broker {broker} 受控关闭尝试 {attempts} 次后放弃（controlled.shutdown.max.retries），仍然停止，{left} 的 leader 仍是它"
                ),
            }
        }
        BrokerStopped { broker, controlled } => match (en, controlled) {
            (true, true) => {
                format!("Broker {broker} finished its controlled shutdown and stopped")
            }
            (true, false) => {
                format!("Broker {broker} crashed (its memory is lost; its disk survives)")
            }
            (false, true) => format!("Broker {broker} 完成受控关闭并停止"),
            (false, false) => format!("Broker {broker} 宕机（内存状态丢失，磁盘数据保留）"),
        },
        BrokerRegistrationFailed {
            broker,
            owner_session,
            session_id,
            timeout_ms,
        } => {
            if en {
                format!(
                    "Broker {broker} failed to start and exited: /brokers/ids/{broker} still belongs to its previous ZooKeeper session 0x{owner_session:x}, which has not expired yet (zookeeper.session.timeout.ms {timeout_ms}), so registering answered NODEEXISTS; it closed its new session 0x{session_id:x}. Start it again once the old session has expired"
                )
            } else {
                format!(
                    "Broker {broker} 启动失败并退出：/brokers/ids/{broker} 仍属于它上一个 ZooKeeper 会话 0x{owner_session:x}，该会话尚未过期（zookeeper.session.timeout.ms {timeout_ms}），注册返回 NODEEXISTS；它关闭了新会话 0x{session_id:x}。等旧会话过期后再启动它"
                )
            }
        }
        ZkSessionOpened { broker, session_id } => {
            if en {
                format!("Broker {broker} opened ZooKeeper session 0x{session_id:x}")
            } else {
                format!("Broker {broker} 建立了 ZooKeeper 会话 0x{session_id:x}")
            }
        }
        ZkSessionExpired {
            broker, timeout_ms, ..
        } => {
            if en {
                format!("ZooKeeper expired broker {broker}'s session: no heartbeat for zookeeper.session.timeout.ms={timeout_ms}")
            } else {
                format!("ZooKeeper 判定 broker {broker} 的会话过期（{timeout_ms} ms 没有心跳）")
            }
        }
        ZnodeCreated {
            path,
            data,
            ephemeral_owner,
            by,
        } => {
            let eph = ephemeral_owner.is_some();
            let data = znode::summary(path, data, l);
            if en {
                format!(
                    "{} created {}{path}: {data}",
                    cap(&node(by, l)),
                    if eph { "ephemeral " } else { "" }
                )
            } else {
                format!(
                    "{} 创建{}节点 {path}：{data}",
                    node(by, l),
                    if eph { "临时" } else { "" }
                )
            }
        }
        ZnodeUpdated {
            path,
            data,
            version,
            by,
        } => {
            let data = znode::summary(path, data, l);
            if en {
                format!(
                    "{} wrote {path} (znode version {version}): {data}",
                    cap(&node(by, l))
                )
            } else {
                format!(
                    "{} 写入 {path}（znode 版本 {version}）：{data}",
                    node(by, l)
                )
            }
        }
        ZnodeDeleted { path, by } => {
            if en {
                format!("{} deleted {path}", cap(&node(by, l)))
            } else {
                format!("{} 删除了 {path}", node(by, l))
            }
        }
        ZnodeExists { path, by, holder } => {
            let holder = znode::summary(path, holder, l);
            if en {
                format!(
                    "{} found {path} already exists ({holder})",
                    cap(&node(by, l))
                )
            } else {
                format!("{} 发现 {path} 已存在（{holder}）", node(by, l))
            }
        }
        WatchFired {
            watcher,
            path,
            change,
        } => {
            if en {
                format!(
                    "Broker {watcher}'s ZooKeeper watch fired: {path} {}",
                    change_en(*change)
                )
            } else {
                format!(
                    "Broker {watcher} 的 ZooKeeper 监听触发：{path} {}",
                    change_zh(*change)
                )
            }
        }
        ControllerElected { broker, epoch } => {
            if en {
                format!("Broker {broker} won /controller and became the controller (controller epoch {epoch})")
            } else {
                format!("Broker {broker} 抢到 /controller，成为控制器（控制器纪元 {epoch}）")
            }
        }
        ControllerLoaded {
            broker,
            live_brokers,
            partitions,
            ..
        } => {
            if en {
                format!("Controller {broker} loaded the cluster from ZooKeeper: live brokers {}, {partitions} partitions", ids_list(live_brokers))
            } else {
                format!("控制器 {broker} 从 ZooKeeper 读取集群状态：存活 broker {}，共 {partitions} 个分区", ids_list(live_brokers))
            }
        }
        ControllerMoved {
            broker,
            new_controller,
        } => {
            if en {
                format!("Broker {broker} is no longer the controller (now: {new_controller})")
            } else {
                format!("Broker {broker} 不再是控制器（当前：{new_controller}）")
            }
        }
        StaleControllerIgnored {
            broker,
            request_epoch,
            known_epoch,
        } => {
            if en {
                format!("Broker {broker} ignored a request from an old controller (epoch {request_epoch} < {known_epoch}): fencing")
            } else {
                format!("Broker {broker} 忽略了旧控制器的请求（epoch {request_epoch} < {known_epoch}）：隔离过期控制器")
            }
        }
        BrokerChangeNoticed {
            controller,
            added,
            removed,
            bounced,
        } => {
            let b_en = if bounced.is_empty() {
                String::new()
            } else {
                format!(", restarted in between {} (a newer broker epoch: handled as a failure and a startup)", ids_list(bounced))
            };
            let b_zh = if bounced.is_empty() {
                String::new()
            } else {
                format!(
                    "，期间重启 {}（broker epoch 变新：按宕机再启动处理）",
                    ids_list(bounced)
                )
            };
            if en {
                format!(
                    "Controller {controller} saw /brokers/ids change: joined {}, left {}{b_en}",
                    ids_list(added),
                    ids_list(removed)
                )
            } else {
                format!(
                    "控制器 {controller} 发现 /brokers/ids 变化：加入 {}，离开 {}{b_zh}",
                    ids_list(added),
                    ids_list(removed)
                )
            }
        }
        TopicCreated {
            topic,
            assignment,
            placement,
            striped,
        } => {
            let a: Vec<String> = assignment
                .iter()
                .take(4)
                .map(|(p, r)| format!("{p}:{}", ids_list(r)))
                .collect();
            let more = if assignment.len() > 4 { " …" } else { "" };
            let racks = placement
                .as_ref()
                .and_then(|c| c.rack_alternated.as_ref())
                .map(|l| ids_list(l));
            let how = match (placement, en) {
                (Some(c), true) => match racks {
                    Some(l) => format!(
                        " (rack-aware placement over the rack-alternated broker list {l}: replicas of a partition on different racks; start index {}, shift {})",
                        c.start_index, c.initial_shift
                    ),
                    None => format!(
                        " (placement start index {}, shift {})",
                        c.start_index, c.initial_shift
                    ),
                },
                (Some(c), false) => match racks {
                    Some(l) => format!(
                        "（机架感知分配，按机架交替的 broker 列表 {l}：同一分区的副本放在不同机架上；起始下标 {}，偏移 {}）",
                        c.start_index, c.initial_shift
                    ),
                    None => format!(
                        "（副本分配起始下标 {}，偏移 {}）",
                        c.start_index, c.initial_shift
                    ),
                },
                (None, true) if *striped => {
                    " (placed by the controller's striped placer: each partition's first replica on the next broker, the others on the following ones)".into()
                }
                (None, false) if *striped => {
                    "（由控制器的条带式分配器放置：每个分区的首个副本依次落在下一个 broker 上，其余副本在其后的 broker 上）".into()
                }
                (None, true) => " (assignment given)".into(),
                (None, false) => "（指定分配）".into(),
            };
            if en {
                format!(
                    "Created topic {topic} with {} partitions: {}{more}{how}",
                    assignment.len(),
                    a.join(" ")
                )
            } else {
                format!(
                    "创建主题 {topic}，{} 个分区：{}{more}{how}",
                    assignment.len(),
                    a.join(" ")
                )
            }
        }
        TopicCreationFailed { topic, error } => {
            if en {
                format!("Creating topic {topic} failed: {error}")
            } else {
                format!("创建主题 {topic} 失败：{error}")
            }
        }
        PartitionsAdded { topic, assignment } => {
            if en {
                format!("Added {} partitions to {topic}", assignment.len())
            } else {
                format!("为 {topic} 增加了 {} 个分区", assignment.len())
            }
        }
        LeaderElected {
            tp,
            algorithm,
            old_leader,
            leader,
            leader_epoch,
            isr,
            unclean,
            candidates,
        } => {
            let ar: Vec<BrokerIdLike> = candidates
                .iter()
                .map(|c| BrokerIdLike(c.broker.0))
                .collect();
            let ar = format!(
                "[{}]",
                ar.iter()
                    .map(|b| b.0.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let rule_en = match algorithm {
                crate::election::ElectionAlgorithm::Offline => {
                    if *unclean {
                        "unclean: no live ISR member, so the first live replica"
                    } else {
                        "first live replica in AR order that is in the ISR"
                    }
                }
                crate::election::ElectionAlgorithm::Preferred => "preferred replica (first in AR)",
                crate::election::ElectionAlgorithm::ControlledShutdown => {
                    "first ISR replica not shutting down"
                }
                crate::election::ElectionAlgorithm::Reassign => {
                    "first live ISR replica of the new assignment"
                }
            };
            let rule_zh = match algorithm {
                crate::election::ElectionAlgorithm::Offline => {
                    if *unclean {
                        "unclean 选举：ISR 中没有存活副本，选 AR 中第一个存活的"
                    } else {
                        "按 AR 顺序，第一个存活且在 ISR 中的副本"
                    }
                }
                crate::election::ElectionAlgorithm::Preferred => "优先副本（AR 的第一个）",
                crate::election::ElectionAlgorithm::ControlledShutdown => {
                    "第一个不在关闭中的 ISR 副本"
                }
                crate::election::ElectionAlgorithm::Reassign => "新分配中第一个存活的 ISR 副本",
            };
            let was = if *old_leader >= 0 {
                format!("{old_leader}")
            } else if en {
                "none".into()
            } else {
                "无".into()
            };
            if en {
                format!("{tp}: leader {was} → {leader} (leader epoch {leader_epoch}, ISR {}); rule: {rule_en}, AR {ar}", ids_list(isr))
            } else {
                format!("{tp}：leader {was} → {leader}（leader epoch {leader_epoch}，ISR {}）；规则：{rule_zh}，AR {ar}", ids_list(isr))
            }
        }
        // What a failed election means depends on why it was held: only
        // the offline election leaves the partition without a leader.
        NoLeaderElected {
            tp, isr, algorithm, ..
        } => {
            let isr = ids_list(isr);
            match (algorithm, en) {
                (crate::election::ElectionAlgorithm::Offline, true) => format!("{tp} is offline: no live replica can lead (ISR {isr}; a replica outside the ISR only with unclean.leader.election.enable=true)"),
                (crate::election::ElectionAlgorithm::Offline, false) => format!("{tp} 离线：没有可以当 leader 的存活副本（ISR {isr}；只有 unclean.leader.election.enable=true 才能选 ISR 之外的副本）"),
                (crate::election::ElectionAlgorithm::ControlledShutdown, true) => format!("{tp}: no other ISR member can take over from the broker shutting down (ISR {isr}); a controlled shutdown never picks a replica outside the ISR, so the current leader keeps {tp} until it stops"),
                (crate::election::ElectionAlgorithm::ControlledShutdown, false) => format!("{tp}：没有其他 ISR 成员能接替正在关闭的 broker（ISR {isr}）；受控关闭从不选 ISR 之外的副本，所以当前 leader 会一直负责 {tp} 直到它停止"),
                (_, true) => format!("{tp}: the replica asked for cannot lead now (ISR {isr}); the current leader stays"),
                (_, false) => format!("{tp}：所要求的副本现在不能当 leader（ISR {isr}）；当前 leader 不变"),
            }
        }
        IsrUpdatedByController {
            tp,
            old_isr,
            new_isr,
            leader_epoch,
            reason,
            ..
        } => {
            if en {
                format!(
                    "Controller set {tp} ISR {} → {} (leader epoch {leader_epoch}): {reason}",
                    ids_list(old_isr),
                    ids_list(new_isr)
                )
            } else {
                format!(
                    "控制器将 {tp} 的 ISR {} → {}（leader epoch {leader_epoch}）：{reason}",
                    ids_list(old_isr),
                    ids_list(new_isr)
                )
            }
        }
        ReassignmentStarted {
            tp,
            original,
            target,
            adding,
            removing,
        } => {
            if en {
                format!("Controller started reassigning {tp}: {} → {} (adding {}, removing {}); the new replicas catch up first", ids_list(original), ids_list(target), ids_list(adding), ids_list(removing))
            } else {
                format!(
                    "控制器开始重新分配 {tp}：{} → {}（新增 {}，移除 {}）；新副本先追上数据",
                    ids_list(original),
                    ids_list(target),
                    ids_list(adding),
                    ids_list(removing)
                )
            }
        }
        ReassignmentCompleted {
            tp,
            replicas,
            removed,
        } => {
            if en {
                format!(
                    "Reassignment of {tp} completed: replicas {}; removed {}",
                    ids_list(replicas),
                    ids_list(removed)
                )
            } else {
                format!(
                    "{tp} 重新分配完成：副本 {}；已移除 {}",
                    ids_list(replicas),
                    ids_list(removed)
                )
            }
        }
        PreferredLeaderImbalance {
            broker,
            imbalanced,
            total,
            percentage,
            ..
        } => {
            if en {
                format!("Leader imbalance on broker {broker}: it leads none of {imbalanced} of its {total} preferred partitions (over leader.imbalance.per.broker.percentage={percentage}%)")
            } else {
                format!("Broker {broker} leader 不均衡：{total} 个优先分区中有 {imbalanced} 个不由它领导（超过 {percentage}%）")
            }
        }
        _ => return None,
    })
}
