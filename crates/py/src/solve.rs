//! Exact solving of small games (`checkraise_core::solve`): `Solver` runs CFR, CFR+, DCFR or
//! external-sampling MCCFR; `GameTree` measures any tabular policy (best responses, values,
//! NashConv, exploitability). Policies cross as dicts `{information state: {action: prob}}`.

use std::collections::BTreeMap;

use checkraise_core::solve::{Algorithm, Solver, TabularPolicy, Tree};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{SolveError, to_py_err};
use crate::game::PyGame;

/// A solver error as the Python exception: engine errors as elsewhere, the rest as
/// `SolveError`.
fn raise(error: checkraise_core::solve::SolveError) -> PyErr {
    match error {
        checkraise_core::solve::SolveError::Game(e) => to_py_err(&e),
        other => SolveError::new_err(other.to_string()),
    }
}

/// A policy dict as the engine's table.
fn policy_from_py(policy: &Bound<'_, PyAny>) -> PyResult<TabularPolicy> {
    let table: BTreeMap<String, BTreeMap<u32, f64>> = policy.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(
            "a policy is a dict {information state string: {action id: probability}}",
        )
    })?;
    let mut out = TabularPolicy::new();
    for (key, probs) in table {
        out.set(key, probs.into_iter().collect());
    }
    Ok(out)
}

/// The engine's table as a policy dict.
fn policy_to_py<'py>(py: Python<'py>, policy: &TabularPolicy) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (key, probs) in policy.iter() {
        let row = PyDict::new(py);
        for &(action, p) in probs {
            row.set_item(action, p)?;
        }
        out.set_item(key, row)?;
    }
    Ok(out)
}

/// A game's whole tree, enumerated once, and exact measures of tabular policies on it.
#[pyclass(module = "checkraise._core", name = "GameTree", frozen)]
pub struct PyGameTree {
    tree: Tree,
}

#[pymethods]
impl PyGameTree {
    /// Enumerates `game`'s tree; a game estimated or found to have more than `max_nodes`
    /// nodes is refused (`SolveError`, naming the size).
    /// The default limit is `checkraise_core::solve::DEFAULT_MAX_NODES` (a test checks it).
    #[new]
    #[pyo3(signature = (game, *, max_nodes = 10_000_000))]
    fn new(py: Python<'_>, game: &Bound<'_, PyAny>, max_nodes: u64) -> PyResult<Self> {
        let game = PyGame::resolve(game, None)?;
        let tree = py
            .detach(|| Tree::build(game.as_ref(), max_nodes))
            .map_err(raise)?;
        Ok(PyGameTree { tree })
    }

    /// The game string.
    #[getter]
    fn game(&self) -> String {
        self.tree.game.clone()
    }

    /// Seats.
    #[getter]
    fn num_players(&self) -> usize {
        self.tree.seats
    }

    /// Nodes (histories, chance and terminal included).
    #[getter]
    fn num_nodes(&self) -> usize {
        self.tree.num_nodes()
    }

    /// Terminal histories.
    #[getter]
    fn num_terminals(&self) -> usize {
        self.tree.num_terminals()
    }

    /// Every information state as `(key, seat, legal actions)`, in the order first met.
    fn infosets(&self) -> Vec<(String, usize, Vec<u32>)> {
        self.tree
            .infosets
            .iter()
            .map(|i| (i.key.clone(), i.seat, i.actions.clone()))
            .collect()
    }

    /// The uniform policy on every information state.
    fn uniform_policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        policy_to_py(py, &TabularPolicy::uniform(&self.tree))
    }

    /// Every seat's expected return when every seat plays `policy`.
    fn policy_values(&self, policy: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
        self.tree
            .policy_values(&policy_from_py(policy)?)
            .map_err(raise)
    }

    /// `(value, policy)`: what a best response of `seat` to the others' parts of `policy`
    /// wins, and that response as a pure policy of `seat`'s information states.
    fn best_response<'py>(
        &self,
        py: Python<'py>,
        policy: &Bound<'_, PyAny>,
        seat: usize,
    ) -> PyResult<(f64, Bound<'py, PyDict>)> {
        let (response, chosen) = self
            .tree
            .best_response(&policy_from_py(policy)?, seat)
            .map_err(raise)?;
        Ok((response.value, policy_to_py(py, &chosen)?))
    }

    /// NashConv of `policy`: the sum over seats of what a best response gains.
    fn nash_conv(&self, policy: &Bound<'_, PyAny>) -> PyResult<f64> {
        self.tree.nash_conv(&policy_from_py(policy)?).map_err(raise)
    }

    /// Exploitability of `policy`: (sum of best-response values − the returns' sum) / seats.
    fn exploitability(&self, policy: &Bound<'_, PyAny>) -> PyResult<f64> {
        self.tree
            .exploitability(&policy_from_py(policy)?)
            .map_err(raise)
    }

    fn __repr__(&self) -> String {
        format!(
            "<checkraise.GameTree {}: {} nodes, {} information states>",
            self.tree.game,
            self.tree.num_nodes(),
            self.tree.infosets.len()
        )
    }
}

/// A CFR-family solver of one game.
#[pyclass(module = "checkraise._core", name = "Solver")]
pub struct PySolver {
    solver: Solver,
}

#[pymethods]
impl PySolver {
    /// A solver of `game` with `algorithm` (`cfr`, `cfr+`, `dcfr`, `mccfr`); `seed` drives
    /// the sampling of `mccfr`; `alpha`, `beta`, `gamma` are DCFR's exponents.
    #[new]
    #[pyo3(signature = (game, algorithm = "cfr+", *, seed = 0, alpha = 1.5, beta = 0.0, gamma = 2.0, max_nodes = 10_000_000))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        algorithm: &str,
        seed: u64,
        alpha: f64,
        beta: f64,
        gamma: f64,
        max_nodes: u64,
    ) -> PyResult<Self> {
        let game = PyGame::resolve(game, None)?;
        let mut algorithm = Algorithm::parse(algorithm, seed).map_err(|e| to_py_err(&e))?;
        if let Algorithm::Dcfr { .. } = algorithm {
            for (name, value) in [("alpha", alpha), ("beta", beta), ("gamma", gamma)] {
                if !value.is_finite() || value < 0.0 {
                    return Err(crate::errors::ParameterError::new_err(format!(
                        "'{name}' cannot be '{value}': a finite number, 0 or more"
                    )));
                }
            }
            algorithm = Algorithm::Dcfr { alpha, beta, gamma };
        }
        let solver = py
            .detach(|| Solver::with_limit(game.as_ref(), algorithm, max_nodes))
            .map_err(raise)?;
        Ok(PySolver { solver })
    }

    /// Runs `iterations` more iterations (without the GIL).
    fn run(&mut self, py: Python<'_>, iterations: u64) {
        let solver = &mut self.solver;
        py.detach(|| solver.run(iterations));
    }

    /// Iterations run so far.
    #[getter]
    fn iterations(&self) -> u64 {
        self.solver.iterations()
    }

    /// The algorithm's name.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.solver.algorithm().name()
    }

    /// The game string.
    #[getter]
    fn game(&self) -> String {
        self.solver.tree().game.clone()
    }

    /// The average policy (the one that converges), as a policy dict.
    fn average_policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        policy_to_py(py, &self.solver.average_policy())
    }

    /// The current policy (regret matching), as a policy dict.
    fn current_policy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        policy_to_py(py, &self.solver.current_policy())
    }

    /// NashConv of the average policy.
    fn nash_conv(&self, py: Python<'_>) -> f64 {
        let solver = &self.solver;
        py.detach(|| solver.nash_conv())
    }

    /// Exploitability of the average policy.
    fn exploitability(&self, py: Python<'_>) -> PyResult<f64> {
        let solver = &self.solver;
        py.detach(|| solver.exploitability()).map_err(raise)
    }

    fn __repr__(&self) -> String {
        format!(
            "<checkraise.Solver {} on {}: {} iterations>",
            self.solver.algorithm().name(),
            self.solver.tree().game,
            self.solver.iterations()
        )
    }
}

/// Registers the classes.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGameTree>()?;
    m.add_class::<PySolver>()?;
    Ok(())
}
