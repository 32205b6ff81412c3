//! `fuse-bench`: see `fuselab_tools::bench` and `fuse-bench --help`.

fn main() {
    fuselab_tools::quiet_on_closed_pipe();
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(fuselab_tools::bench::run(&args));
}
