//! `wasm-bindgen-test-runner`, as wasm-bindgen-cli's own binary runs it.
fn main() -> anyhow::Result<()> {
    env_logger::init();
    wasm_bindgen_cli::wasm_bindgen_test_runner::run_cli_with_args(std::env::args_os())
}
