//! What touches the browser or leaves the page: localStorage and
//! downloads, keyboard listeners, share links, exported files, and the
//! lesson library read from the page's own origin.

pub mod browser;
pub mod export;
pub mod keys;
pub mod lessons;
pub mod share;
