//! `checkraise-server`: parses flags and serves the checkraise gRPC services, or, as
//! `checkraise-server export ...`, writes the stored matches as trajectories and exits.

use clap::Parser;

use checkraise_grpc::config::{Command, Config};
use checkraise_grpc::server;

/// Building views and replies is allocation-heavy (JSON views, action strings, tensors):
/// glibc's malloc took about 40% of the server's CPU in an Act round trip, mimalloc much less.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let config = Config::parse();
    match &config.command {
        Some(Command::Export(args)) => return export(args),
        Some(Command::Health(args)) => return health(args),
        None => {}
    }
    server::init_logging(&config);
    report_bus_errors();
    // Bots think on the blocking pool (see `matches`). tokio's default lets it grow to 512
    // threads, and each thread that allocates keeps mimalloc pages of its own: 200 clients
    // creating matches at once grew the server from 22 MB to 366 MB. `--bot-threads` bounds
    // the pool, so requests beyond it queue for a thread instead.
    let served = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(config.bot_threads())
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}").into())
        .and_then(|runtime| runtime.block_on(server::run(config)));
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            // Plain text, not Debug's quoting: this is what a person starting the server reads.
            let error = checkraise_grpc::errors::error_chain(&*error);
            tracing::error!(%error, "checkraise-server cannot run");
            eprintln!("checkraise-server: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// `checkraise-server export`: exit code 0 with a summary line on standard output, 2 with a
/// line on standard error for bad input (format, game, database, output directory), 1 when a
/// match cannot be exported or a file cannot be written.
fn export(args: &checkraise_grpc::export::ExportArgs) -> std::process::ExitCode {
    let exported = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| checkraise_grpc::export::ExportError {
            bad_input: false,
            message: format!("cannot start the runtime: {error}"),
        })
        .and_then(|runtime| runtime.block_on(checkraise_grpc::export::run(args)));
    match exported {
        Ok(summary) => {
            println!("{summary}");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("checkraise-server export: {error}");
            std::process::ExitCode::from(error.exit_code())
        }
    }
}

/// `checkraise-server health`: 0 and `SERVING` on standard output when the server says it
/// serves; 1 with the answer (or why none came) on standard error otherwise.
fn health(args: &checkraise_grpc::config::HealthArgs) -> std::process::ExitCode {
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    let address = if args.address.contains("://") {
        args.address.clone()
    } else {
        format!("http://{}", args.address)
    };
    let timeout = std::time::Duration::from_secs(args.timeout_secs);
    let asked = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the runtime: {error}"))
        .and_then(|runtime| {
            runtime.block_on(async {
                let endpoint = tonic::transport::Endpoint::from_shared(address.clone())
                    .map_err(|error| format!("'{address}' is not an address: {error}"))?
                    .connect_timeout(timeout)
                    .timeout(timeout);
                let channel = endpoint
                    .connect()
                    .await
                    .map_err(|error| format!("cannot connect to {address}: {error}"))?;
                let answer = HealthClient::new(channel)
                    .check(HealthCheckRequest {
                        service: args.service.clone(),
                    })
                    .await
                    .map_err(|status| format!("{address} answered {status}"))?;
                Ok(answer.into_inner().status())
            })
        });
    match asked {
        Ok(ServingStatus::Serving) => {
            println!("SERVING");
            std::process::ExitCode::SUCCESS
        }
        Ok(status) => {
            eprintln!(
                "checkraise-server health: {address} is {}",
                status.as_str_name()
            );
            std::process::ExitCode::FAILURE
        }
        Err(why) => {
            eprintln!("checkraise-server health: {why}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// What the server says, on standard error, when it is killed by SIGBUS.
#[cfg(unix)]
const BUS_ERROR: &[u8] = b"checkraise-server: stopped by SIGBUS: a memory-mapped file failed \
under it. With SQLite this is the database's shared-memory file (the -shm file beside it) \
being truncated, made immutable or read-only, or losing its disk while the server ran. Every \
change acknowledged before is stored; fix the data directory's files and start the server \
again.\n";

/// Installs a SIGBUS handler that says why the server stops before it stops (a bus error
/// cannot be recovered from: the memory the server was using is gone).
#[cfg(unix)]
fn report_bus_errors() {
    extern "C" fn on_bus_error(_: libc::c_int) {
        // Only async-signal-safe calls here: write(2), then _exit(2).
        unsafe {
            libc::write(2, BUS_ERROR.as_ptr().cast(), BUS_ERROR.len());
            libc::_exit(135);
        }
    }
    let handler: extern "C" fn(libc::c_int) = on_bus_error;
    // SAFETY: the handler only makes async-signal-safe calls.
    unsafe {
        libc::signal(libc::SIGBUS, handler as libc::sighandler_t);
    }
}

#[cfg(not(unix))]
fn report_bus_errors() {}
