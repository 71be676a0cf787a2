//! checkraise-py: the Python module `checkraise._core`.
//!
//! A thin binding: it converts Python values to engine values and back, and engine errors to
//! Python exceptions. No rule of any game lives here; every function is generic over the
//! registry's games, so a new game appears in Python with no change to this crate.

mod arena;
mod bots;
mod convert;
mod driver;
mod env;
mod errors;
mod game;
mod policy;
mod solve;
mod state;
mod vector;

use pyo3::prelude::*;

/// The engine's own allocations (states, per-env lists, `VectorEnv`'s observation and mask
/// arrays) come from mimalloc, not from the process's malloc: stepping a `VectorEnv` of 1,024
/// Prediction Chess games from Python was 10–20% faster with it
/// (docs/benchmarks/python_throughput.md). Python and numpy keep their own allocators; the
/// arrays Rust allocated are freed through Rust when numpy drops them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The importing thread (normally the one that steps envs) works in the batch pool.
    checkraise_core::vector::join_global_pool();
    errors::register(m)?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<state::PyState>()?;
    m.add_class::<bots::PyBot>()?;
    m.add_class::<driver::PyDriver>()?;
    m.add_class::<driver::PyMatch>()?;
    m.add_class::<env::PyEnv>()?;
    m.add_class::<vector::PyVectorEnv>()?;
    m.add_class::<policy::PyPolicyNet>()?;
    m.add_function(wrap_pyfunction!(policy::read_safetensors, m)?)?;
    m.add_function(wrap_pyfunction!(policy::safetensors_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(game::games, m)?)?;
    m.add_function(wrap_pyfunction!(game::game_names, m)?)?;
    m.add_function(wrap_pyfunction!(game::make, m)?)?;
    m.add_function(wrap_pyfunction!(bots::bot_action, m)?)?;
    // Unpickling helpers (private: `__reduce__` names them).
    m.add_function(wrap_pyfunction!(env::_restore_env, m)?)?;
    m.add_function(wrap_pyfunction!(vector::_restore_vector_env, m)?)?;
    m.add_function(wrap_pyfunction!(vector::_parse_opponent_pool, m)?)?;
    m.add_function(wrap_pyfunction!(bots::_restore_bot, m)?)?;
    m.add_function(wrap_pyfunction!(bots::shipped_policy, m)?)?;
    m.add_function(wrap_pyfunction!(driver::_restore_driver, m)?)?;
    m.add_function(wrap_pyfunction!(driver::_restore_match, m)?)?;
    m.add_function(wrap_pyfunction!(bots::bot_catalog, m)?)?;
    arena::register(m)?;
    solve::register(m)?;
    Ok(())
}
