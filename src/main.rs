fn main() {
    #[cfg(target_arch = "wasm32")]
    kafka_visualiser::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("The web app runs in a browser: use ./scripts/serve.sh (or kafka-sim for the command line).");
}
