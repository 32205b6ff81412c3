//! `fuse-run`: see `fuselab_tools::run` and `fuse-run --help`.

fn main() {
    fuselab_tools::quiet_on_closed_pipe();
    fuselab_targets::cpu::blas::choose_openblas_core();
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(fuselab_tools::run::run(&args));
}
