"""Every refusal of SPEC's demo contract, in-process: the demo_config trial
starts the demo on three of them only."""

import tempfile
import unittest
from pathlib import Path

from demo import BadConfig, Config, load_config


class LoadConfigTest(unittest.TestCase):
    def test_each_refusal_names_the_file_and_the_key_at_fault(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = str(Path(folder) / "demo.json")
            for content, expected in [
                ("batch_size = 3", "not valid JSON"),
                ("[3, 10]", "not a JSON object"),
                ('{"batch_size": 3}', '"max_passes" is missing'),
                ('{"batch_size": 3, "max_passes": 10, "z": 1}', 'unknown key "z"'),
                ('{"batch_size": 3, "max_passes": true}', '"max_passes" must be an integer >= 1'),
                ('{"batch_size": 3.5, "max_passes": 10}', '"batch_size" must be an integer >= 1'),
                ('{"batch_size": 0, "max_passes": 10}', '"batch_size" must be an integer >= 1'),
                ('{"batch_size": "3", "max_passes": 10}', '"batch_size" must be an integer >= 1'),
                (
                    '{"batch_size": 3, "max_passes": 10, "max_attempts": true}',
                    '"max_attempts" must be an integer >= 1',
                ),
                (
                    '{"batch_size": 3, "max_passes": 10, "max_attempts": 0}',
                    '"max_attempts" must be an integer >= 1',
                ),
                (
                    '{"batch_size": 3, "max_passes": 10, "max_attempts": "3"}',
                    '"max_attempts" must be an integer >= 1',
                ),
                (
                    '{"batch_size": 3, "max_passes": 10, "max_attempts": 2.5}',
                    '"max_attempts" must be an integer >= 1',
                ),
            ]:
                Path(path).write_text(content, encoding="utf-8")
                with self.subTest(content), self.assertRaises(BadConfig) as refused:
                    load_config(path)
                self.assertEqual(str(refused.exception), f"{path}: {expected}")
            missing = str(Path(folder) / "missing.json")
            with self.assertRaises(BadConfig) as refused:
                load_config(missing)
            self.assertEqual(str(refused.exception), f"{missing}: cannot read the file")

    def test_max_attempts_may_be_left_out(self) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "demo.json"
            path.write_text('{"batch_size": 3, "max_passes": 10}', encoding="utf-8")
            self.assertEqual(load_config(str(path)), Config(3, 10, None), "no attempt limit")

    def test_the_shared_config_is_read(self) -> None:
        self.assertEqual(
            load_config(str(Path(__file__).parents[2] / "demo.json")), Config(3, 10, 3)
        )
