//! The built page (`dist/`, from `trunk build --release`) in real headless
//! Chromium: served on 127.0.0.1, rendered, its DOM checked, and screenshots
//! taken at a projector size and a laptop size into `target/screenshots/`.
//! Ignored by default (it needs `dist/`); scripts/test.sh runs it.
#![cfg(not(target_arch = "wasm32"))]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn mime(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// Serves `dir` on an ephemeral loopback port; returns the port and a
/// switch that, once set, makes the server drop every connection (the
/// network is gone).
fn serve(dir: PathBuf) -> (u16, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let down = Arc::new(AtomicBool::new(false));
    let down2 = down.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            if down2.load(Ordering::SeqCst) {
                drop(s);
                continue;
            }
            let dir = dir.clone();
            thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]);
                let path = req
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("/")
                    .split(['?', '#'])
                    .next()
                    .unwrap_or("/");
                let rel = if path == "/" {
                    "index.html"
                } else {
                    path.trim_start_matches('/')
                };
                let file = dir.join(rel);
                let (status, body, ty) = match std::fs::read(&file) {
                    Ok(b) if !rel.contains("..") => ("200 OK", b, mime(&file)),
                    _ => ("404 Not Found", b"not found".to_vec(), "text/plain"),
                };
                let head = format!("HTTP/1.1 {status}\r\nContent-Type: {ty}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(&body);
            });
        }
    });
    (port, down)
}

fn chromium(args: &[&str]) -> String {
    let profile = std::env::temp_dir().join(format!("kv-chromium-{}", std::process::id()));
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
            "--virtual-time-budget=8000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .expect("chromium is installed (scripts/setup.sh installs it)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[ignore = "needs dist/ from trunk build --release; run by scripts/test.sh"]
fn the_built_page_renders_the_cluster_in_chromium() {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").exists(),
        "build the page first: trunk build --release --offline"
    );
    let (port, down) = serve(dist);
    let url = format!("http://127.0.0.1:{port}/");

    let dom = chromium(&["--dump-dom", &url]);
    assert!(
        dom.contains("<h1>Kafka Visualiser</h1>"),
        "the app did not mount:\n{dom}"
    );
    for b in 0..3 {
        assert!(
            dom.contains(&format!("id=\"broker-{b}\"")),
            "broker {b} missing"
        );
    }

    // The service worker that makes the page work offline is served and
    // takes control (it caches only the page's own files).
    assert!(root().join("dist/sw.js").exists(), "dist/sw.js missing");
    assert!(
        dom.contains("data-offline=\"ready\""),
        "the service worker did not become ready:\n{}",
        &dom[..dom.len().min(400)]
    );

    // A link opening mid-scenario renders that step.
    let dom = chromium(&["--dump-dom", &format!("{url}#step=80")]);
    assert!(
        dom.contains("event 80 of"),
        "#step=80 did not open at event 80"
    );
    assert!(
        dom.contains("class=\"broker controller\""),
        "the controller is not marked"
    );

    // The lesson library: the menu lists every lesson of lessons/index.json,
    // and a link opens one.
    let dom = chromium(&["--dump-dom", &format!("{url}#lesson=storage-lookup")]);
    assert!(
        dom.contains("Segments, the sparse index and offset lookup"),
        "#lesson=storage-lookup did not open the lesson:\n{}",
        &dom[..dom.len().min(800)]
    );
    assert!(
        dom.contains("S1 · S2 · S3 · S4"),
        "the lesson panel is missing"
    );
    let index = std::fs::read_to_string(root().join("static/lessons/index.json")).unwrap();
    let listed = index.matches("\"file\"").count();
    let menu = dom
        .split("id=\"lesson-pick\"")
        .nth(1)
        .and_then(|m| m.split("</select>").next())
        .expect("the lesson menu is on the page");
    assert_eq!(
        menu.matches("<option value=\"").count() - 1,
        listed,
        "the lesson menu lists every lesson of the index"
    );
    let dom = chromium(&["--dump-dom", &format!("{url}#lesson=no-such-lesson")]);
    assert!(
        dom.contains("has no lesson “no-such-lesson”"),
        "a bad lesson link is not named"
    );

    let shots = root().join("target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let views = [
        ("cluster", "#step=88"),
        ("lesson", "#lesson=storage-lookup&view=storage&step=160"),
        ("producer", "#view=producer&step=80"),
        ("practice", "#view=practice"),
    ];
    for ((w, h), (name, frag)) in [(1920, 1080), (1024, 768)]
        .into_iter()
        .flat_map(|s| views.iter().map(move |v| (s, *v)))
    {
        let file = shots.join(format!("page-{name}-{w}x{h}.png"));
        chromium(&[
            &format!("--window-size={w},{h}"),
            &format!("--screenshot={}", file.display()),
            &format!("{url}{frag}"),
        ]);
        assert!(
            std::fs::metadata(&file)
                .map(|m| m.len() > 10_000)
                .unwrap_or(false),
            "no screenshot {}",
            file.display()
        );
        println!("screenshot: {}", file.display());
    }

    // Offline: the server is gone; the page opens from the service worker's
    // copies (same browser profile as above).
    down.store(true, Ordering::SeqCst);
    let dom = chromium(&["--dump-dom", &format!("{url}#step=40")]);
    assert!(
        dom.contains("<h1>Kafka Visualiser</h1>") && dom.contains("event 40 of"),
        "the page did not open offline:\n{}",
        &dom[..dom.len().min(600)]
    );
    // Lessons never opened before still open offline (the worker kept them).
    let dom = chromium(&[
        "--dump-dom",
        &format!("{url}#lesson=retention-and-compaction"),
    ]);
    assert!(
        dom.contains("Retention and compaction"),
        "a lesson did not open offline:\n{}",
        &dom[..dom.len().min(600)]
    );
}
