//! `fuse-bench`: see `fuselab_tools::bench` and `fuse-bench --help`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(fuselab_tools::bench::run(&args));
}
