//! `checkraise-arena`: plays bots against each other on one game and rates them.
//!
//! ```sh
//! cargo run --release -p checkraise-cli --bin checkraise-arena -- \
//!     --game poker_chess random heuristic 'ismcts(iterations=1000)' --deals 100 --seed 1
//! ```
//!
//! Prints the ratings and the pair table as markdown (or JSON or CSV with `--format`), with a
//! progress bar on standard error. The same seed gives the same table.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use checkraise_core::arena::{ArenaConfig, run};
use clap::{Parser, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    Markdown,
    Json,
    Csv,
}

/// Plays every pair of bots on one game (duplicate deals, every seating, all cores) and rates
/// them: mean returns and win rates with 95% intervals, Bradley–Terry ratings on the Elo
/// scale anchored at `random` = 0 with bootstrap intervals.
#[derive(Debug, Parser)]
#[command(name = "checkraise-arena", version)]
struct Args {
    /// The game string, such as `pokeros` or `holdem_chess(players=6)`.
    #[arg(long)]
    game: String,
    /// Two or more bot specs: `random`, `heuristic`, `ismcts(iterations=1000,rollout=random)`.
    #[arg(required = true, num_args = 2..)]
    bots: Vec<String>,
    /// Deals per pair of bots (each played with every seating).
    #[arg(long, default_value_t = 100)]
    deals: usize,
    /// Seed of the deals, the bots' generators and the bootstrap.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Bootstrap resamples for the rating intervals.
    #[arg(long, default_value_t = 200)]
    bootstrap: usize,
    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    format: Format,
    /// Write the result here instead of standard output.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(threads) = args.threads {
        if threads == 0 {
            eprintln!("error: --threads cannot be 0: a positive number of threads");
            return ExitCode::from(2);
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .expect("the global pool is built once");
    }
    let config = ArenaConfig {
        game: args.game.clone(),
        bots: args.bots.clone(),
        deals: args.deals,
        seed: args.seed,
        bootstrap: args.bootstrap,
    };
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0).with_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} deals, {elapsed} (eta {eta})")
                .expect("a valid template"),
        )
    };
    let report = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let start = Instant::now();
    let result = match run(&config, Some(&report)) {
        Ok(r) => r,
        Err(e) => {
            bar.abandon();
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    bar.finish_and_clear();
    let text = match args.format {
        Format::Markdown => result.to_markdown(),
        Format::Json => result.to_json() + "\n",
        Format::Csv => result.to_csv(),
    };
    let written = match &args.out {
        Some(path) => std::fs::write(path, text),
        None => std::io::stdout().write_all(text.as_bytes()),
    };
    if let Err(e) = written {
        eprintln!("error: cannot write the result: {e}");
        return ExitCode::from(1);
    }
    if !args.quiet {
        eprintln!(
            "{} games in {:.1} s",
            result.pairs.iter().map(|p| p.games).sum::<usize>() / 2,
            start.elapsed().as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}
