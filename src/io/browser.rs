//! What the page does to the browser beyond drawing: the remembered
//! language (localStorage) and file downloads (a local Blob URL).

use crate::i18n::Lang;
use std::cell::RefCell;

const LANG_KEY: &str = "kafka-visualiser.lang";

/// The language the learner chose last time (localStorage), if readable.
pub fn saved_lang() -> Option<Lang> {
    let s = web_sys::window()?.local_storage().ok()??;
    match s.get_item(LANG_KEY).ok()??.as_str() {
        "zh" => Some(Lang::Zh),
        "en" => Some(Lang::En),
        _ => None,
    }
}

pub fn save_lang(lang: Lang) {
    if let Some(Ok(Some(s))) = web_sys::window().map(|w| w.local_storage()) {
        let _ = s.set_item(LANG_KEY, if lang == Lang::Zh { "zh" } else { "en" });
    }
}

/// The learner asked the system for less motion
/// (`prefers-reduced-motion: reduce`).
pub fn reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|m| m.matches())
}

/// Continue as the learner wants it: played (or, with less motion asked
/// for, at once).
pub fn continue_action() -> crate::state::Action {
    if reduced_motion() {
        crate::state::Action::ContinueNow
    } else {
        crate::state::Action::Continue
    }
}

thread_local! {
    static LAST_DOWNLOAD: RefCell<Option<(String, usize, u64)>> = const { RefCell::new(None) };
    /// The first bytes of the last download (for tests of exported files).
    static LAST_DOWNLOAD_HEAD: RefCell<Option<(String, Vec<u8>)>> = const { RefCell::new(None) };
}

/// The name and first 64 bytes of the last file offered for download.
pub fn last_download_bytes() -> Option<(String, Vec<u8>)> {
    LAST_DOWNLOAD_HEAD.with(|d| d.borrow().clone())
}

/// FNV-1a 64 of some bytes (to compare a download with the engine's file).
pub fn fnv64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The name, size and FNV-1a 64 of the last file offered for download.
pub fn last_download() -> Option<(String, usize, u64)> {
    LAST_DOWNLOAD.with(|d| d.borrow().clone())
}

/// Offers `bytes` as a file download (a local Blob URL: no network request).
pub fn download(name: &str, bytes: &[u8]) -> Result<(), String> {
    use wasm_bindgen::JsCast;
    LAST_DOWNLOAD.with(|d| *d.borrow_mut() = Some((name.to_string(), bytes.len(), fnv64(bytes))));
    LAST_DOWNLOAD_HEAD.with(|d| {
        *d.borrow_mut() = Some((name.to_string(), bytes[..bytes.len().min(64)].to_vec()))
    });
    let err = |e: wasm_bindgen::JsValue| format!("{name}: the download failed: {e:?}");
    let arr = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&arr);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/octet-stream");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(err)?;
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| "no document".to_string())?;
    let a: web_sys::HtmlAnchorElement = doc
        .create_element("a")
        .map_err(err)?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    a.set_href(&url);
    a.set_download(name);
    a.click();
    web_sys::Url::revoke_object_url(&url).map_err(err)
}

/// Removes its event listener when dropped.
pub struct Listener {
    kind: &'static str,
    closure: Option<wasm_bindgen::closure::Closure<dyn FnMut(web_sys::Event)>>,
}

impl Drop for Listener {
    fn drop(&mut self) {
        use wasm_bindgen::JsCast;
        if let (Some(c), Some(w)) = (self.closure.take(), web_sys::window()) {
            let _ = w.remove_event_listener_with_callback(self.kind, c.as_ref().unchecked_ref());
        }
    }
}

/// Listens for `kind` events on the window (`hashchange`) until the
/// returned listener is dropped.
pub fn listen_window(kind: &'static str, f: impl FnMut(web_sys::Event) + 'static) -> Listener {
    use wasm_bindgen::JsCast;
    let closure = wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::Event)>::new(f);
    let ok = web_sys::window().is_some_and(|w| {
        w.add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref())
            .is_ok()
    });
    Listener {
        kind,
        closure: ok.then_some(closure),
    }
}
