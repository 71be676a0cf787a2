//! Writes the JSON Schema of every game's view to `docs/views/<game>.schema.json`.
//!
//! Run it after changing a view struct: `cargo run -p checkraise-core --example view_schemas`
//! (the test `tests/view_schemas.rs` fails while a committed schema differs).

use std::fs;
use std::path::Path;

use checkraise_core::games::view_schemas;
use checkraise_core::view::schema_text;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/views");
    fs::create_dir_all(&dir).expect("create docs/views");
    for (name, schema) in view_schemas() {
        let path = dir.join(format!("{name}.schema.json"));
        fs::write(&path, schema_text(&schema)).expect("write a schema");
        println!("wrote docs/views/{name}.schema.json");
    }
}
