//! Compiles the gRPC contract with protox (pure Rust, no protoc) and writes the file
//! descriptor set that server reflection serves.

use std::path::PathBuf;

use prost::Message;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let file = proto_root.join("checkraise/v1/checkraise.proto");
    println!("cargo:rerun-if-changed={}", file.display());
    let fds = protox::compile([&file], [&proto_root])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("checkraise_descriptor.bin"),
        fds.encode_to_vec(),
    )?;
    tonic_prost_build::configure().compile_fds(fds)?;
    Ok(())
}
