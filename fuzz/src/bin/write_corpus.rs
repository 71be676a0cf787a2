//! Writes the seed corpus, `fuzz/corpus/<target>/seed-*`, replacing the seeds there.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for (target, _) in checkraise_fuzz::TARGETS {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("seed-"))
            {
                std::fs::remove_file(path)?;
            }
        }
        for (name, bytes) in checkraise_fuzz::corpus::seeds(target) {
            std::fs::write(dir.join(name), bytes)?;
        }
    }
    Ok(())
}
