//! The shared case table: loading every case file and checking every rule
//! of SPEC.md's case format before any runner sees a case.
//!
//! Errors name the file, the case and the field, and all of them are
//! collected, so a broken table is fixed in one round.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::json::Json;

/// The largest id (and attempt number) every language reads exactly: 2^53-1.
pub const MAX_ID: u64 = 9_007_199_254_740_991;
/// The most passes a case may ask for, so a typo cannot hang a runner.
pub const MAX_PASSES: u64 = 1_000_000;

/// The trial name each language's demo check uses, so no case may take it.
pub const DEMO_TRIAL: &str = "demo";
/// The trial name of each language's run over generated scenarios.
pub const GENERATED_TRIAL: &str = "generated";

/// One outbox row of a case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// Outbox id, strictly increasing within a case.
    pub id: u64,
    /// The order whose events must stay in order.
    pub aggregate: String,
    /// The event type (`type` in JSON).
    pub event_type: String,
}

/// A scripted broker failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Not delivered.
    Down,
    /// Delivered, but the ack was lost.
    LostAck,
}

impl Failure {
    /// The spelling in case files and on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Failure::Down => "down",
            Failure::LostAck => "lost_ack",
        }
    }
}

/// What a correct implementation produces for a case.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Ids sent, one list per pass.
    pub sent: Vec<Vec<u64>>,
    /// The consumer's journal.
    pub journal: Vec<String>,
    /// Redeliveries the consumer dropped.
    pub duplicates: u64,
}

/// One validated case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The file the case came from, for messages.
    pub file: PathBuf,
    /// Stable id, unique across files; part of the trial name.
    pub name: String,
    /// What the case shows.
    pub description: String,
    /// Rows per pass.
    pub batch_size: u64,
    /// Outbox rows in insertion order.
    pub messages: Vec<Message>,
    /// Attempt number to failure.
    pub failures: BTreeMap<u64, Failure>,
    /// How many passes the relay runs.
    pub passes: u64,
    /// Build a new relay before every pass.
    pub restart_each_pass: bool,
    /// The expected result.
    pub expect: Outcome,
}

impl Case {
    /// The case as the runner protocol sends it: one line, without `expect`
    /// (a runner never sees expected values, so it cannot echo them), with
    /// `failures` always present and optional features only when set.
    pub fn request_line(&self) -> String {
        serde_json::to_string(&Request(self)).expect("a case serializes")
    }
}

/// A case's wire form, written straight from the case (no JSON tree in
/// between: the differential run writes thousands of these a second).
struct Request<'a>(&'a Case);

impl Serialize for Request<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let case = self.0;
        let mut request = serializer.serialize_map(None)?;
        request.serialize_entry("name", &case.name)?;
        request.serialize_entry("batch_size", &case.batch_size)?;
        request.serialize_entry("messages", &Messages(&case.messages))?;
        request.serialize_entry("failures", &Failures(&case.failures))?;
        request.serialize_entry("passes", &case.passes)?;
        if case.restart_each_pass {
            request.serialize_entry("restart_each_pass", &true)?;
        }
        request.end()
    }
}

struct Messages<'a>(&'a [Message]);

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(WireMessage))
    }
}

struct WireMessage<'a>(&'a Message);

impl Serialize for WireMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = serializer.serialize_map(Some(3))?;
        fields.serialize_entry("id", &self.0.id)?;
        fields.serialize_entry("aggregate", &self.0.aggregate)?;
        fields.serialize_entry("type", &self.0.event_type)?;
        fields.end()
    }
}

struct Failures<'a>(&'a BTreeMap<u64, Failure>);

impl Serialize for Failures<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.0
                .iter()
                .map(|(attempt, failure)| (attempt.to_string(), failure.as_str())),
        )
    }
}

/// A rule of the case format that a file breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseError {
    /// The file.
    pub file: PathBuf,
    /// The case: its name, or its position when the name itself is bad.
    pub case: Option<String>,
    /// The field, as a path such as `messages[1].id`.
    pub field: Option<String>,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for CaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(case) = &self.case {
            write!(f, ": case {case}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.problem)
    }
}

impl std::error::Error for CaseError {}

/// Every case from `sources` (files, or folders searched for `*.json`
/// except `schema.json`), or every rule they break.
pub fn load(sources: &[PathBuf]) -> Result<Vec<Case>, Vec<CaseError>> {
    let mut errors = Vec::new();
    let mut files = Vec::new();
    for source in sources {
        if let Err(e) = collect_files(source, &mut files) {
            errors.push(file_error(source, format!("cannot read: {e}")));
        }
    }
    let mut cases: Vec<Case> = Vec::new();
    let mut first_file: HashMap<String, PathBuf> = HashMap::new();
    for file in &files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                errors.push(file_error(file, format!("cannot read: {e}")));
                continue;
            }
        };
        for case in parse_file(file, &text, &mut errors) {
            if let Some(earlier) = first_file.get(&case.name) {
                errors.push(CaseError {
                    file: file.clone(),
                    case: Some(format!("`{}`", case.name)),
                    field: Some("name".into()),
                    problem: format!(
                        "the name is already used in {} (names are unique across all case files)",
                        earlier.display()
                    ),
                });
                continue;
            }
            first_file.insert(case.name.clone(), file.clone());
            cases.push(case);
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(errors)
    }
}

fn file_error(file: &Path, problem: String) -> CaseError {
    CaseError {
        file: file.to_path_buf(),
        case: None,
        field: None,
        problem,
    }
}

/// The case files among `sources`: files as given, folders searched for
/// `*.json` except `schema.json`, in sorted order.
pub fn files(sources: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for source in sources {
        collect_files(source, &mut files)?;
    }
    Ok(files)
}

fn collect_files(source: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !source.is_dir() {
        std::fs::metadata(source)?;
        files.push(source.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(source)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_files(&path, files)?;
        } else if path.extension().is_some_and(|ext| ext == "json")
            && path.file_name().is_some_and(|name| name != "schema.json")
        {
            files.push(path);
        }
    }
    Ok(())
}

/// The cases of one file's text; what is wrong goes to `errors`.
pub fn parse_file(file: &Path, text: &str, errors: &mut Vec<CaseError>) -> Vec<Case> {
    parse_cases(file, text, errors, ExpectRule::Required)
        .into_iter()
        .map(|(case, _)| case)
        .collect()
}

/// Like [`parse_file`], for `make bless`: a case may lack `expect` (it then
/// has an empty one), and the flag says whether it had one.
pub fn parse_file_for_bless(
    file: &Path,
    text: &str,
    errors: &mut Vec<CaseError>,
) -> Vec<(Case, bool)> {
    parse_cases(file, text, errors, ExpectRule::Optional)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ExpectRule {
    Required,
    Optional,
}

fn parse_cases(
    file: &Path,
    text: &str,
    errors: &mut Vec<CaseError>,
    rule: ExpectRule,
) -> Vec<(Case, bool)> {
    let root = match Json::parse(text) {
        Ok(root) => root,
        Err(e) => {
            errors.push(file_error(file, format!("not valid JSON: {e}")));
            return Vec::new();
        }
    };
    let mut check = Checker {
        file,
        case: None,
        errors,
    };
    let Some(top) = check.object("", &root) else {
        return Vec::new();
    };
    if !check.fields("", top, &["cases"], &["$schema"]) {
        return Vec::new();
    }
    if let Some(schema) = get(top, "$schema") {
        check.string("$schema", schema);
    }
    let Some(items) = get(top, "cases").and_then(|v| check.array("cases", v)) else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| parse_case(&mut check, index, item, rule))
        .collect()
}

fn parse_case(
    check: &mut Checker<'_>,
    index: usize,
    item: &Json,
    rule: ExpectRule,
) -> Option<(Case, bool)> {
    let position = format!("#{} (cases[{index}])", index + 1);
    check.case = Some(position.clone());
    let fields = check.object("", item)?;
    let before = check.errors.len();

    let name = get(fields, "name").and_then(|v| check.string("name", v));
    match &name {
        Some(name) if name == DEMO_TRIAL || name == GENERATED_TRIAL => check.fail(
            "name",
            format!("{name:?} is reserved for a trial of each language: pick another name"),
        ),
        Some(name) if is_valid_name(name) => check.case = Some(format!("`{name}`")),
        Some(name) => check.fail(
            "name",
            format!("{name:?} is not a valid name: use lowercase letters, digits and `_` only"),
        ),
        None => {}
    }
    check.fields(
        "",
        fields,
        &["name", "description", "batch_size", "messages", "passes"],
        &["failures", "restart_each_pass", "expect"],
    );
    let has_expect = get(fields, "expect").is_some();
    if !has_expect && rule == ExpectRule::Required {
        check.fail(
            "expect",
            "required field is missing: run `make bless` to compute it from the Rust reference, then review \
             the diff"
                .into(),
        );
    }

    let description = get(fields, "description").and_then(|v| check.string("description", v));
    if description.as_deref().is_some_and(|d| d.trim().is_empty()) {
        check.fail(
            "description",
            "must say what the case shows, not be empty".into(),
        );
    }
    if description.as_deref().is_some_and(|d| d.contains("TODO")) {
        check.fail(
            "description",
            "still holds the template's TODO: say what the case shows".into(),
        );
    }
    let batch_size = get(fields, "batch_size").and_then(|v| check.int("batch_size", v, 1, MAX_ID));
    let messages = get(fields, "messages").and_then(|v| check.messages(v));
    let failures = match get(fields, "failures") {
        Some(v) => check.failures(v),
        None => Some(BTreeMap::new()),
    };
    let passes = get(fields, "passes").and_then(|v| check.int("passes", v, 0, MAX_PASSES));
    let restart_each_pass = match get(fields, "restart_each_pass") {
        Some(v) => check.boolean("restart_each_pass", v),
        None => Some(false),
    };
    let expect = match get(fields, "expect") {
        Some(v) => check.expect(v, passes),
        None => Some(Outcome::default()),
    };

    if check.errors.len() > before {
        return None;
    }
    let case = Case {
        file: check.file.to_path_buf(),
        name: name?,
        description: description?,
        batch_size: batch_size?,
        messages: messages?,
        failures: failures?,
        passes: passes?,
        restart_each_pass: restart_each_pass?,
        expect: expect?,
    };
    Some((case, has_expect))
}

/// A case name: lowercase letters, digits and `_`, at least one.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

fn get<'j>(fields: &'j [(String, Json)], key: &str) -> Option<&'j Json> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn join(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_owned()
    } else {
        format!("{prefix}.{field}")
    }
}

/// Checks values of one file and records what is wrong with them.
struct Checker<'a> {
    file: &'a Path,
    case: Option<String>,
    errors: &'a mut Vec<CaseError>,
}

impl Checker<'_> {
    fn fail(&mut self, field: &str, problem: String) {
        self.errors.push(CaseError {
            file: self.file.to_path_buf(),
            case: self.case.clone(),
            field: (!field.is_empty()).then(|| field.to_owned()),
            problem,
        });
    }

    fn wrong_type(&mut self, field: &str, wanted: &str, value: &Json) {
        self.fail(field, format!("must be {wanted}, not {}", value.kind()));
    }

    /// Reports unknown and missing fields; false if any.
    fn fields(
        &mut self,
        prefix: &str,
        fields: &[(String, Json)],
        required: &[&str],
        optional: &[&str],
    ) -> bool {
        let before = self.errors.len();
        for (key, _) in fields {
            if !required.contains(&key.as_str()) && !optional.contains(&key.as_str()) {
                let mut known: Vec<&str> = required.iter().chain(optional).copied().collect();
                known.sort_unstable();
                self.fail(
                    &join(prefix, key),
                    format!("unknown field (known fields: {})", known.join(", ")),
                );
            }
        }
        for key in required {
            if get(fields, key).is_none() {
                self.fail(&join(prefix, key), "required field is missing".into());
            }
        }
        self.errors.len() == before
    }

    fn object<'j>(&mut self, field: &str, value: &'j Json) -> Option<&'j [(String, Json)]> {
        match value {
            Json::Object(fields) => Some(fields),
            other => {
                self.wrong_type(field, "an object", other);
                None
            }
        }
    }

    fn array<'j>(&mut self, field: &str, value: &'j Json) -> Option<&'j [Json]> {
        match value {
            Json::Array(items) => Some(items),
            other => {
                self.wrong_type(field, "an array (write `[]` for none)", other);
                None
            }
        }
    }

    fn string(&mut self, field: &str, value: &Json) -> Option<String> {
        match value {
            Json::Str(s) => Some(s.clone()),
            other => {
                self.wrong_type(field, "a string", other);
                None
            }
        }
    }

    fn boolean(&mut self, field: &str, value: &Json) -> Option<bool> {
        match value {
            Json::Bool(b) => Some(*b),
            other => {
                self.wrong_type(field, "true or false", other);
                None
            }
        }
    }

    fn int(&mut self, field: &str, value: &Json, min: u64, max: u64) -> Option<u64> {
        match value {
            Json::UInt(n) if (min..=max).contains(n) => Some(*n),
            Json::UInt(n) => {
                self.fail(field, format!("must be from {min} to {max}, not {n}"));
                None
            }
            Json::NegInt(n) => {
                self.fail(field, format!("must be from {min} to {max}, not {n}"));
                None
            }
            Json::Float(x) => {
                self.fail(
                    field,
                    format!(
                        "must be an integer from {min} to {max} written without fraction or \
                         exponent, not {x:?}"
                    ),
                );
                None
            }
            other => {
                self.wrong_type(field, &format!("an integer from {min} to {max}"), other);
                None
            }
        }
    }

    fn messages(&mut self, value: &Json) -> Option<Vec<Message>> {
        let items = self.array("messages", value)?;
        let before = self.errors.len();
        let mut messages = Vec::with_capacity(items.len());
        let mut previous: Option<u64> = None;
        for (i, item) in items.iter().enumerate() {
            let at = format!("messages[{i}]");
            let Some(fields) = self.object(&at, item) else {
                continue;
            };
            if !self.fields(&at, fields, &["id", "aggregate", "type"], &[]) {
                continue;
            }
            let id_field = format!("{at}.id");
            let id = get(fields, "id").and_then(|v| self.int(&id_field, v, 1, MAX_ID));
            let aggregate =
                get(fields, "aggregate").and_then(|v| self.string(&format!("{at}.aggregate"), v));
            let event_type =
                get(fields, "type").and_then(|v| self.string(&format!("{at}.type"), v));
            if let (Some(id), Some(last)) = (id, previous) {
                if id <= last {
                    self.fail(
                        &id_field,
                        format!("{id} is not greater than the previous id {last}: ids must strictly increase"),
                    );
                }
            }
            previous = id.or(previous);
            if let (Some(id), Some(aggregate), Some(event_type)) = (id, aggregate, event_type) {
                messages.push(Message {
                    id,
                    aggregate,
                    event_type,
                });
            }
        }
        (self.errors.len() == before).then_some(messages)
    }

    fn failures(&mut self, value: &Json) -> Option<BTreeMap<u64, Failure>> {
        let fields = self.object("failures", value)?;
        let before = self.errors.len();
        let mut failures = BTreeMap::new();
        for (key, kind) in fields {
            let field = format!("failures.{key:?}");
            let attempt = parse_attempt(key);
            if attempt.is_none() {
                self.fail(
                    &field,
                    format!(
                        "{key:?} is not an attempt number: write a decimal from 1 to {MAX_ID} \
                         without sign, leading zero or spaces"
                    ),
                );
            }
            let kind = match kind {
                Json::Str(s) if s == "down" => Some(Failure::Down),
                Json::Str(s) if s == "lost_ack" => Some(Failure::LostAck),
                Json::Str(s) => {
                    self.fail(
                        &field,
                        format!("unknown failure {s:?}: use \"down\" or \"lost_ack\""),
                    );
                    None
                }
                other => {
                    self.wrong_type(&field, "\"down\" or \"lost_ack\"", other);
                    None
                }
            };
            if let (Some(attempt), Some(kind)) = (attempt, kind) {
                failures.insert(attempt, kind);
            }
        }
        (self.errors.len() == before).then_some(failures)
    }

    fn expect(&mut self, value: &Json, passes: Option<u64>) -> Option<Outcome> {
        let fields = self.object("expect", value)?;
        if !self.fields("expect", fields, &["sent", "journal", "duplicates"], &[]) {
            return None;
        }
        let before = self.errors.len();
        let mut sent = Vec::new();
        if let Some(lists) = get(fields, "sent").and_then(|v| self.array("expect.sent", v)) {
            for (pass, list) in lists.iter().enumerate() {
                let at = format!("expect.sent[{pass}]");
                if let Some(ids) = self.array(&at, list) {
                    let ids = ids
                        .iter()
                        .enumerate()
                        .filter_map(|(i, id)| self.int(&format!("{at}[{i}]"), id, 1, MAX_ID))
                        .collect();
                    sent.push(ids);
                }
            }
            if let Some(passes) = passes {
                if lists.len() as u64 != passes {
                    self.fail(
                        "expect.sent",
                        format!(
                            "has {} lists but passes is {passes}: write one list per pass (`[]` for a pass that sends nothing)",
                            lists.len()
                        ),
                    );
                }
            }
        }
        let mut journal = Vec::new();
        if let Some(entries) = get(fields, "journal").and_then(|v| self.array("expect.journal", v))
        {
            for (i, entry) in entries.iter().enumerate() {
                if let Some(entry) = self.string(&format!("expect.journal[{i}]"), entry) {
                    journal.push(entry);
                }
            }
        }
        let duplicates =
            get(fields, "duplicates").and_then(|v| self.int("expect.duplicates", v, 0, MAX_ID));
        if self.errors.len() > before {
            return None;
        }
        Some(Outcome {
            sent,
            journal,
            duplicates: duplicates?,
        })
    }
}

/// A failure key: a canonical decimal attempt number from 1 to 2^53-1.
fn parse_attempt(key: &str) -> Option<u64> {
    let canonical = !key.is_empty()
        && key.len() <= 16
        && key.bytes().all(|b| b.is_ascii_digit())
        && !key.starts_with('0');
    canonical
        .then(|| key.parse::<u64>().ok())
        .flatten()
        .filter(|n| (1..=MAX_ID).contains(n))
}
