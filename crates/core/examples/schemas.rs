//! Writes the JSON Schemas of every game's view to `docs/views/<game>.schema.json` and of its
//! action struct to `docs/actions/<game>.schema.json`: every game not behind a feature (the
//! published games).
//!
//! Run it after changing a view or an action struct: `cargo run -p checkraise-core --example
//! schemas` (the test `tests/view_schemas.rs` fails while a committed schema differs).

use std::fs;
use std::path::Path;

use checkraise_core::registry::{action_schemas, entries, view_schemas};
use checkraise_core::view::schema_text;

fn main() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    for (folder, schemas) in [("views", view_schemas()), ("actions", action_schemas())] {
        let dir = docs.join(folder);
        fs::create_dir_all(&dir).expect("create the schemas' folder");
        for (name, schema) in schemas {
            let entry = entries().iter().find(|e| e.info.name == name);
            if entry.is_some_and(|e| e.feature.is_some()) {
                continue;
            }
            fs::write(
                dir.join(format!("{name}.schema.json")),
                schema_text(&schema),
            )
            .expect("write a schema");
            println!("wrote docs/{folder}/{name}.schema.json");
        }
    }
}
