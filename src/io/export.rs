//! Export for slides and notes: the scenario as a JSON file (to edit and load
//! again), the trace as JSON, and the drawing of the current view as SVG or
//! PNG. Everything is made in the page and offered as a download: nothing is
//! sent anywhere.

use crate::io::browser::download;
use crate::player::Player;
use kafka_sim::Lang;

/// A JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The trace so far as JSON: each event's number, simulated time, type and
/// captions in both languages. (`kafka-sim run --json` gives every field.)
pub fn trace_json(player: &Player) -> String {
    let mut out = format!(
        "{{\"format\":\"kafka-visualiser/trace@1\",\"scenario\":{},\"seed\":{},\"cursor\":{},\"events\":[",
        json_str(&player.scenario().name),
        player.scenario().seed,
        player.cursor()
    );
    for (i, e) in player.known_events().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out += &format!(
            "\n{{\"id\":{},\"time_ms\":{},\"type\":{},\"caption\":{{\"en\":{},\"zh\":{}}}}}",
            e.id,
            e.time_ms,
            json_str(e.kind.name_str()),
            json_str(&e.caption(Lang::En)),
            json_str(&e.caption(Lang::Zh))
        );
    }
    out += "\n]}\n";
    out
}

/// A file name from the scenario's name: `leader-failover`.
pub fn file_stem(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let s = s
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if s.is_empty() {
        "scenario".into()
    } else {
        s
    }
}

pub fn scenario(player: &Player) -> Result<(), String> {
    let name = format!("{}.json", file_stem(&player.scenario().name));
    download(&name, player.source().as_bytes())
}

pub fn trace(player: &Player) -> Result<(), String> {
    let name = format!("{}-trace.json", file_stem(&player.scenario().name));
    download(&name, trace_json(player).as_bytes())
}

/// The drawing in `stage` (the current view) with the page's stylesheet
/// inside, so the file looks the same on its own.
async fn svg_text(stage: &web_sys::Element) -> Result<(String, u32, u32), String> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let svg = stage.query_selector("svg").ok().flatten().ok_or(
        "This view has no drawing to export: the Cluster and Consumer groups views have one.",
    )?;
    let (w, h) = svg
        .get_attribute("viewBox")
        .and_then(|v| {
            let n: Vec<u32> = v.split(' ').filter_map(|x| x.parse().ok()).collect();
            (n.len() == 4).then(|| (n[2], n[3]))
        })
        .unwrap_or((1000, 600));
    let css = match doc
        .query_selector("link[rel=stylesheet]")
        .ok()
        .flatten()
        .and_then(|l| l.get_attribute("href"))
    {
        Some(href) => crate::io::lessons::fetch_text(&href)
            .await
            .unwrap_or_default(),
        None => String::new(),
    };
    let body = svg.outer_html();
    let open_end = body.find('>').ok_or("not an SVG element")?;
    let text = format!(
        "{} xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\"><style>{}</style><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>{}",
        &body[..open_end],
        css.replace("</style", ""),
        &body[open_end + 1..]
    );
    Ok((text, w, h))
}

pub async fn svg(stem: String, stage: web_sys::Element) -> Result<(), String> {
    let (text, _, _) = svg_text(&stage).await?;
    download(&format!("{stem}.svg"), text.as_bytes())
}

/// Draws the SVG onto a canvas at twice its size and downloads the PNG.
pub async fn png(stem: String, stage: web_sys::Element) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    let (text, w, h) = svg_text(&stage).await?;
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let img: web_sys::HtmlImageElement = doc
        .create_element("img")
        .map_err(|_| "no image")?
        .dyn_into()
        .map_err(|_| "no image")?;
    let url = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        js_sys::encode_uri_component(&text)
    );
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        img.set_onload(Some(&resolve));
        img.set_onerror(Some(&reject));
    });
    img.set_src(&url);
    wasm_bindgen_futures::JsFuture::from(loaded)
        .await
        .map_err(|_| "the drawing could not be rendered to an image".to_string())?;
    let canvas: web_sys::HtmlCanvasElement = doc
        .create_element("canvas")
        .map_err(|_| "no canvas")?
        .dyn_into()
        .map_err(|_| "no canvas")?;
    canvas.set_width(w * 2);
    canvas.set_height(h * 2);
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .ok()
        .flatten()
        .and_then(|c| c.dyn_into().ok())
        .ok_or("no 2D canvas")?;
    ctx.draw_image_with_html_image_element_and_dw_and_dh(
        &img,
        0.0,
        0.0,
        (w * 2) as f64,
        (h * 2) as f64,
    )
    .map_err(|_| "the drawing could not be drawn")?;
    let data = canvas
        .to_data_url()
        .map_err(|_| "the image could not be encoded")?;
    let b64 = data.split_once(',').map(|(_, b)| b).ok_or("no PNG data")?;
    let bytes = crate::io::export::base64_decode(b64).ok_or("bad PNG data")?;
    download(&format!("{stem}.png"), &bytes)
}

/// Standard base64 (the canvas's data URL).
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|c| *c != b'=') {
        acc = (acc << 6) | val(c)? as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
        assert_eq!(json_str("高水位"), "\"高水位\"");
    }

    #[test]
    fn the_trace_export_is_valid_json_with_every_event_so_far() {
        let mut p = Player::from_json(crate::state::DEFAULT_SCENARIO).unwrap();
        for _ in 0..30 {
            p.step();
        }
        let v: serde_json::Value = serde_json::from_str(&trace_json(&p)).unwrap();
        let events = v["events"].as_array().unwrap();
        assert_eq!(events.len() as u64, p.known_len());
        assert_eq!(v["cursor"], 30);
        assert_eq!(events[0]["type"], "broker_started");
        assert_eq!(events[0]["caption"]["en"], "Broker 0 started");
        assert_eq!(
            events[0]["caption"]["zh"],
            p.event(0).unwrap().caption(Lang::Zh)
        );
    }

    #[test]
    fn base64_decodes_like_the_standard() {
        assert_eq!(base64_decode("aGVsbG8gd29ybGQ=").unwrap(), b"hello world");
        assert_eq!(base64_decode("iVBORw0KGgo=").unwrap(), b"\x89PNG\r\n\x1a\n");
        assert!(base64_decode("a$b").is_none());
    }

    #[test]
    fn file_stems_are_plain() {
        assert_eq!(file_stem("Leader failover"), "leader-failover");
        assert_eq!(
            file_stem("acks, retries and idempotence"),
            "acks-retries-and-idempotence"
        );
        assert_eq!(file_stem("消费者组"), "scenario");
    }
}
