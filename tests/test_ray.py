"""Ray: a VectorEnv shipped by pickle to remote actors, each stepping its own copy; the copies
continue exactly as the original would."""

import numpy as np
import pytest
import ray

import checkraise as cr


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@ray.remote
class Stepper:
    """Steps the VectorEnv it was given (unpickled by Ray) with its own sampled actions."""

    def __init__(self, venv):
        self.venv = venv

    def run(self, steps):
        total = np.zeros(self.venv.num_players, dtype=np.float64)
        for _ in range(steps):
            _, rewards, _, _, _ = self.venv.step(self.venv.sample_actions())
            total += rewards.sum(axis=0)
        return total, self.venv.observations.copy()


def test_remote_actors_step_pickled_vector_envs(local_ray):
    venv = cr.VectorEnv("holdem_chess", 16, seed=3)
    venv.reset()
    actors = [Stepper.remote(venv) for _ in range(3)]
    results = ray.get([a.run.remote(50) for a in actors])
    # Every actor got an identical copy, so all three runs agree, and with the original.
    expected_total = np.zeros(venv.num_players)
    for _ in range(50):
        _, rewards, _, _, _ = venv.step(venv.sample_actions())
        expected_total += rewards.sum(axis=0)
    for total, observations in results:
        np.testing.assert_allclose(total, expected_total)
        np.testing.assert_array_equal(observations, venv.observations)
