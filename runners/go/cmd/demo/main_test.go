package main

import (
	"os"
	"path/filepath"
	"testing"
)

// Every refusal of SPEC's demo contract, in-process: the demo_config trial
// starts the demo on three of them only.
func TestLoadConfigRefusesNamingTheFileAndTheKey(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{
		`batch_size = 3`:    "not valid JSON",
		`[3, 10]`:           "not a JSON object",
		`{"batch_size": 3}`: `"max_passes" is missing`,
		`{"batch_size": 3, "max_passes": 10, "z": 1}`:               `unknown key "z"`,
		`{"batch_size": 3, "max_passes": true}`:                     `"max_passes" must be an integer >= 1`,
		`{"batch_size": 3.5, "max_passes": 10}`:                     `"batch_size" must be an integer >= 1`,
		`{"batch_size": 0, "max_passes": 10}`:                       `"batch_size" must be an integer >= 1`,
		`{"batch_size": "3", "max_passes": 10}`:                     `"batch_size" must be an integer >= 1`,
		`{"batch_size": 3, "max_passes": 10, "max_attempts": true}`: `"max_attempts" must be an integer >= 1`,
		`{"batch_size": 3, "max_passes": 10, "max_attempts": 0}`:    `"max_attempts" must be an integer >= 1`,
		`{"batch_size": 3, "max_passes": 10, "max_attempts": "3"}`:  `"max_attempts" must be an integer >= 1`,
		`{"batch_size": 3, "max_passes": 10, "max_attempts": 2.5}`:  `"max_attempts" must be an integer >= 1`,
	} {
		path := filepath.Join(dir, "demo.json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := loadConfig(path)
		if err == nil || err.Error() != path+": "+want {
			t.Errorf("%s: got %v, want %q", content, err, path+": "+want)
		}
	}
	_, err := loadConfig(filepath.Join(dir, "missing.json"))
	if want := filepath.Join(dir, "missing.json") + ": cannot read the file"; err == nil || err.Error() != want {
		t.Errorf("a missing file: got %v, want %q", err, want)
	}
}

func TestLoadConfigReadsTheSharedConfig(t *testing.T) {
	c, err := loadConfig("../../../demo.json")
	if err != nil || c != (config{batchSize: 3, maxPasses: 10, maxAttempts: 3}) {
		t.Errorf("got %+v, %v", c, err)
	}
}

func TestLoadConfigTakesNoAttemptLimitWhenTheKeyIsLeftOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(path, []byte(`{"batch_size": 2, "max_passes": 4}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := loadConfig(path)
	if err != nil || c != (config{batchSize: 2, maxPasses: 4}) {
		t.Errorf("got %+v, %v; want no attempt limit (0)", c, err)
	}
}
