//! The `tsuru` binary: the library's [`tsuru::app::main`].

fn main() {
    tsuru::app::main();
}
