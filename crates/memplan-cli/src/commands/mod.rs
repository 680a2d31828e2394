//! One module per subcommand.

pub mod bench;
pub mod opt;
pub mod plan;
