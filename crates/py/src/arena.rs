//! The arena: rates bots by playing every pair with duplicate deals (`checkraise_core::arena`).
//!
//! The run happens on a thread of its own, in a rayon pool of its own (every core, or
//! `RAYON_NUM_THREADS`): the calling thread may be a member of the global pool (see
//! `vector::join_global_pool`) that does no work while it waits, so the global pool would run
//! the arena one core short, or not at all on one core. The calling thread meanwhile waits
//! without the GIL, wakes every 100 ms to report progress to a Python callback and to check
//! for Ctrl-C, and returns the result.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use checkraise_core::GameError;
use checkraise_core::arena::{self, ArenaConfig, ArenaResult};
use pyo3::prelude::*;

use crate::convert;
use crate::errors::{CheckraiseError, OrRaise};

/// How often the waiting thread wakes to report progress and check for Ctrl-C.
const POLL: Duration = Duration::from_millis(100);

/// An arena run's results, computed by the engine: `to_json`, `to_markdown`, `to_csv`,
/// `to_dict` (`checkraise.arena.run` wraps it in dataclasses).
#[pyclass(module = "checkraise._core", name = "ArenaReport", frozen)]
pub struct PyArenaReport {
    result: ArenaResult,
}

#[pymethods]
impl PyArenaReport {
    /// The whole result as JSON text.
    fn to_json(&self) -> String {
        self.result.to_json()
    }

    /// The ratings and pairs as markdown tables.
    fn to_markdown(&self) -> String {
        self.result.to_markdown()
    }

    /// Pairs and ratings as one CSV table (column `table` is `pair` or `rating`).
    fn to_csv(&self) -> String {
        self.result.to_csv()
    }

    /// The whole result as a dict (intervals as 2-element lists).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = serde_json::to_value(&self.result)
            .map_err(|e| CheckraiseError::new_err(format!("cannot convert the result: {e}")))?;
        convert::json_to_py(py, &value)
    }

    fn __repr__(&self) -> String {
        format!(
            "<checkraise.ArenaReport {}: {} bots, {} deals per pair>",
            self.result.game,
            self.result.bots.len(),
            self.result.deals
        )
    }
}

fn invalid(name: &str, value: impl ToString, allowed: &str) -> PyErr {
    crate::errors::to_py_err(&GameError::InvalidSetting {
        name: name.to_string(),
        value: value.to_string(),
        allowed: allowed.to_string(),
    })
}

/// Plays every pair of `bots` (bot specs, two or more, distinct) at `game` (a name, a game
/// string or a `Game`) for `deals` deals each, every deal with every seating, and rates the
/// bots (see `checkraise.arena.run`).
///
/// `progress(done, total)`, if given, is called on this thread with the deals done so far
/// whenever that number has grown (at most every 100 ms, and once at the end). The GIL is
/// released while the engine plays. Ctrl-C (or an exception from `progress`) raises at once
/// and stops the engine: the deals being played finish in the background, no new one starts.
#[pyfunction]
#[pyo3(signature = (game, bots, deals=100, seed=0, bootstrap=200, progress=None))]
pub fn arena_run(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    bots: Vec<String>,
    deals: i64,
    seed: u64,
    bootstrap: i64,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<PyArenaReport> {
    let game = if let Ok(made) = game.cast::<crate::game::PyGame>() {
        convert::game_string(made.get().game.as_ref())
    } else {
        let text: String = game.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err("game must be a Game or a game string")
        })?;
        // Unknown games and bad parameters fail here, before a thread starts.
        checkraise_core::make_game_from_string(&text).or_raise()?;
        text
    };
    if deals < 1 {
        return Err(invalid("deals", deals, "an integer of at least 1"));
    }
    if bootstrap < 0 {
        return Err(invalid("bootstrap", bootstrap, "an integer of at least 0"));
    }
    if let Some(callback) = &progress
        && !callback.is_callable()
    {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "progress must be a callable progress(done, total) or None",
        ));
    }
    let pairs = bots.len() * bots.len().saturating_sub(1) / 2;
    let total_deals = pairs.saturating_mul(deals as usize);
    let config = ArenaConfig {
        game,
        bots,
        deals: deals as usize,
        seed,
        bootstrap: bootstrap as usize,
    };
    if let Some(callback) = &progress
        && total_deals > 0
    {
        // The engine reports after each deal; start the count (and a bar) now.
        callback.call1((0, total_deals))?;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("checkraise-arena-{i}"))
        .build()
        .map_err(|e| CheckraiseError::new_err(format!("cannot start the arena's threads: {e}")))?;
    let done = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    // Stops the engine when this function returns early (Ctrl-C, a failing callback).
    struct StopOnDrop(Arc<AtomicBool>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let _stop_on_return = StopOnDrop(stop.clone());
    let total = Arc::new(AtomicUsize::new(0));
    let (send, receive) = mpsc::channel();
    {
        let (done, total, stop) = (done.clone(), total.clone(), stop.clone());
        std::thread::Builder::new()
            .name("checkraise-arena".to_string())
            .spawn(move || {
                let report = |now: usize, all: usize| {
                    total.store(all, Ordering::Relaxed);
                    done.fetch_max(now, Ordering::Relaxed);
                };
                let result = pool.install(|| arena::run_until(&config, Some(&report), &stop));
                // The receiver is gone when the caller stopped waiting (Ctrl-C).
                let _ = send.send(result);
            })
            .map_err(|e| CheckraiseError::new_err(format!("cannot start the arena: {e}")))?;
    }
    let mut reported = 0;
    let mut receive = receive;
    let result = loop {
        // A receiver is not `Sync`: it goes into the GIL-free wait and comes back.
        let received;
        (received, receive) = py.detach(move || (receive.recv_timeout(POLL), receive));
        let finished = match received {
            Ok(result) => Some(result),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(CheckraiseError::new_err(
                    "the arena's thread stopped without a result",
                ));
            }
        };
        let now = done.load(Ordering::Relaxed);
        if let Some(callback) = &progress
            && now > reported
        {
            reported = now;
            // The engine's count, once it has reported (the same as ours).
            let all = match total.load(Ordering::Relaxed) {
                0 => total_deals,
                all => all,
            };
            callback.call1((now, all))?;
        }
        if let Some(result) = finished {
            break result;
        }
        py.check_signals()?;
    };
    match result.or_raise()? {
        Some(result) => Ok(PyArenaReport { result }),
        None => Err(CheckraiseError::new_err("the arena was stopped")),
    }
}

/// Registers the arena's function and result class on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyArenaReport>()?;
    m.add_function(wrap_pyfunction!(arena_run, m)?)?;
    Ok(())
}
