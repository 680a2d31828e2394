//! One module per subcommand.

pub mod bench;
pub mod model;
pub mod opt;
pub mod plan;
pub mod report;
