//! Kafka Visualiser's web app: yew function components that play back,
//! explain and lay out the `kafka-sim` engine's trace. The UI computes no
//! Kafka behaviour; it draws the engine's state at the cursor.

pub mod app;
pub mod branch;
pub mod components;
pub mod config_panel;
pub mod diff;
pub mod export;
pub mod i18n;
pub mod inspect_model;
pub mod keys;
pub mod lesson;
pub mod lessons;
pub mod player;
pub mod producer_model;
pub mod progress;
pub mod share;
pub mod view_model;

/// Mounts the app on the page's body.
pub fn start() {
    yew::Renderer::<app::App>::with_props(app::AppProps { scenario: None }).render();
}
