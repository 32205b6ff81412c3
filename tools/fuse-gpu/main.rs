//! `fuse-gpu`: see `fuselab_tools::gpu` and `fuse-gpu --help`.

fn main() {
    fuselab_tools::quiet_on_closed_pipe();
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(fuselab_tools::gpu::run(&args));
}
