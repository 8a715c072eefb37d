//! Captions of the events about messages, connections and links.

use super::*;

/// The caption of `e` if it is one of this file's events.
pub(super) fn words(e: &EventKind, l: Lang) -> Option<String> {
    use EventKind::*;
    let en = l == Lang::En;
    Some(match e {
        MessageSent {
            from, to, message, ..
        } => {
            if en {
                format!(
                    "{} → {}: {}",
                    cap(&node(from, l)),
                    node(to, l),
                    message.summary()
                )
            } else {
                format!("{} → {}：{}", node(from, l), node(to, l), message.summary())
            }
        }
        ConnectionClosed {
            node: n,
            peer,
            requests_failed,
        } => {
            if en {
                format!("{}'s connection to broker {peer} was reset: {requests_failed} request(s) in flight failed and will be retried", cap(&node(n, l)))
            } else {
                format!(
                    "{} 与 broker {peer} 的连接被重置：{requests_failed} 个在途请求失败，将重试",
                    node(n, l)
                )
            }
        }
        ReconnectBackoff {
            node: n,
            peer,
            failures,
            backoff_ms,
        } => {
            if en {
                format!("{} cannot reach broker {peer} (failure {failures} in a row); it waits {backoff_ms} ms before connecting again (reconnect.backoff.ms, doubling up to reconnect.backoff.max.ms)", cap(&node(n, l)))
            } else {
                format!("{} 连不上 broker {peer}（连续第 {failures} 次）；等待 {backoff_ms} ms 后再连（reconnect.backoff.ms，翻倍直至 reconnect.backoff.max.ms）", node(n, l))
            }
        }
        MessageDropped {
            from,
            to,
            api,
            reason,
            ..
        } => {
            let why_en = match reason {
                DropReason::LinkCut => "the link is cut",
                DropReason::DestinationDown => "the destination is down",
                DropReason::ConnectionReset => "the destination restarted (connection reset)",
                DropReason::NotListening => {
                    "the broker does not accept connections yet: it opens its listeners once the controller first unfences it"
                }
            };
            let why_zh = match reason {
                DropReason::LinkCut => "链路已断开",
                DropReason::DestinationDown => "目标节点已宕机",
                DropReason::ConnectionReset => "目标节点已重启（连接被重置）",
                DropReason::NotListening => {
                    "该 broker 尚未接受连接：控制器首次解除对它的隔离后，它才开放监听端口"
                }
            };
            if en {
                format!(
                    "{api} from {} to {} was lost: {why_en}",
                    node(from, l),
                    node(to, l)
                )
            } else {
                format!(
                    "{} 发往 {} 的 {api} 丢失：{why_zh}",
                    node(from, l),
                    node(to, l)
                )
            }
        }
        LinkChanged {
            a,
            b,
            cut,
            extra_latency_ms,
        } => {
            if en {
                if *cut {
                    format!("The link {}–{} is cut", node(a, l), node(b, l))
                } else if *extra_latency_ms > 0 {
                    format!(
                        "The link {}–{} is slow: +{extra_latency_ms} ms",
                        node(a, l),
                        node(b, l)
                    )
                } else {
                    format!("The link {}–{} is healthy", node(a, l), node(b, l))
                }
            } else if *cut {
                format!("{} 与 {} 之间的链路断开", node(a, l), node(b, l))
            } else if *extra_latency_ms > 0 {
                format!(
                    "{} 与 {} 之间的链路变慢：+{extra_latency_ms} ms",
                    node(a, l),
                    node(b, l)
                )
            } else {
                format!("{} 与 {} 之间的链路恢复正常", node(a, l), node(b, l))
            }
        }
        _ => return None,
    })
}
