//! The one contract of the case table and the wire: `cases/schema.json`,
//! read when the harness runs from the root it found (a copied checkout
//! checks its cases with its own schema), never built in. It says what a
//! case file holds (every file is checked with it), what a runner may
//! answer (`$defs/answer`: every answer line is checked with it), the
//! words of the outcome's lists (an item's `title`: `run`, `entry`), and
//! which optional properties of a case belong to a feature (`x-feature`),
//! which a port declares it plays in its manifest.

mod problems;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

pub use problems::{not_an_attempt, Found};

/// The largest id (and attempt number) every language reads exactly: 2^53-1.
pub const MAX_ID: u64 = 9_007_199_254_740_991;

/// An outcome as data: its fields by name, as `$defs/outcome` has them
/// (a case's `expect`, a runner's answer without its name).
pub type Fields = serde_json::Map<String, Value>;

/// The schema's file, relative to the repository root.
pub const SCHEMA: &str = "cases/schema.json";

/// The schema and what is built from it once: a validator of case files,
/// one of answers (the same document, rooted at `$defs/answer`), and the
/// features its properties name.
#[derive(Debug)]
pub struct Contract {
    schema: Value,
    cases: jsonschema::Validator,
    answer: Value,
    answers: jsonschema::Validator,
}

impl Contract {
    /// The contract of the checkout at `root`, or what is wrong with its
    /// [`SCHEMA`] (the caller names the file).
    pub fn load(root: &Path) -> Result<Arc<Contract>, String> {
        let text = crate::files::read_regular(&root.join(SCHEMA), "a JSON Schema")?;
        let schema = serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?;
        Contract::new(schema)
    }

    /// The repository's contract ([`crate::repo_root`]), read once.
    pub fn repo() -> Result<Arc<Contract>, String> {
        static REPO: OnceLock<Result<Arc<Contract>, String>> = OnceLock::new();
        REPO.get_or_init(|| Contract::load(&crate::repo_root()))
            .clone()
    }

    /// The contract a schema states, or why it is no JSON Schema.
    pub fn new(schema: Value) -> Result<Arc<Contract>, String> {
        let compile = |schema: &Value| {
            jsonschema::validator_for(schema).map_err(|e| format!("not a JSON Schema: {e}"))
        };
        let answer = serde_json::json!({
            "$schema": schema.get("$schema"),
            "$defs": schema.get("$defs"),
            "$ref": "#/$defs/answer",
        });
        Ok(Arc::new(Contract {
            cases: compile(&schema)?,
            answers: compile(&answer)?,
            schema,
            answer,
        }))
    }

    /// Every problem of a case file's value, by case (see
    /// [`problems::of`]); `bless`: a case may lack `expect`.
    pub fn case_problems(
        &self,
        file: &Value,
        floats: bool,
        bless: bool,
    ) -> HashMap<Option<usize>, Vec<Found>> {
        problems::of((&self.schema, &self.cases), file, floats, (true, bless))
    }

    /// Whether a runner's answer line (its value) is one `$defs/answer`
    /// allows: the fast check every answer gets.
    pub fn is_answer(&self, answer: &Value) -> bool {
        self.answers.is_valid(answer)
    }

    /// Every problem of an answer, each with its field.
    pub fn answer_problems(&self, answer: &Value, floats: bool) -> Vec<Found> {
        let schema = (&self.answer, &self.answers);
        let found = problems::of(schema, answer, floats, (false, false));
        found.into_values().flatten().collect()
    }

    /// What the schema finds wrong with a case name, if anything: what
    /// `make new-case` asks before it writes the name into a file.
    pub fn name_problem(&self, name: &str) -> Option<String> {
        let file = serde_json::json!({"cases": [{"name": name}]});
        let case = self.case_problems(&file, false, true).remove(&Some(0));
        let name = case?.into_iter().find(|(field, _)| field == "name");
        name.map(|(_, message)| message)
    }

    /// Every feature the schema's properties name, sorted: the columns of
    /// the language-by-feature matrix.
    pub fn features(&self) -> BTreeSet<String> {
        // A case with every property uses every feature.
        let properties = self.schema.pointer("/$defs/case/properties");
        self.features_of(properties.unwrap_or(&Value::Null))
    }

    /// The features a case (its value in a file) uses: each of its
    /// properties whose schema names one, present even at its default.
    pub fn features_of(&self, case: &Value) -> BTreeSet<String> {
        let properties = self.schema.pointer("/$defs/case/properties");
        let fields = case.as_object().into_iter().flatten();
        let feature = |name: &String| properties?.get(name)?.get("x-feature")?.as_str();
        let features = fields.filter_map(|(name, _)| feature(name));
        features.map(str::to_owned).collect()
    }

    /// The word for one item of the outcome's list `field` (its items'
    /// `title`: `run` for `sent`), for a message to count by.
    pub fn item_word(&self, field: &str) -> Option<&str> {
        let pointer = format!("/$defs/outcome/properties/{field}/items/title");
        self.schema.pointer(&pointer)?.as_str()
    }
}
