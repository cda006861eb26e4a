//! What several test files share.

/// A valid case, for tests that break it one rule at a time.
pub const GOOD_CASE: &str = r#"{
  "name": "good",
  "description": "A valid case to break one field at a time.",
  "batch_size": 10,
  "messages": [
    {"id": 1, "aggregate": "order-1", "type": "OrderPlaced"},
    {"id": 2, "aggregate": "order-2", "type": "OrderPlaced"}
  ],
  "failures": {"1": "down"},
  "passes": 2,
  "expect": {"sent": [[2], [1]], "journal": ["order-2 OrderPlaced", "order-1 OrderPlaced"], "duplicates": 0}
}"#;
