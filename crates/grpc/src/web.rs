//! The web page: its assets, embedded in the binary at build time from `web/dist/` (built
//! with npm from `web/`, committed so that building the server needs no npm), and the routes
//! that serve them next to the gRPC-Web translation of the services, on the server's address.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tonic::service::Routes;
use tonic_web::GrpcWebLayer;

/// One embedded file: its path on the server, its content type and its bytes.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

/// Every file of the page (`web/dist/`).
const ASSETS: [Asset; 3] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../../../web/dist/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../web/dist/app.js"),
    },
    Asset {
        path: "/app.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../../../web/dist/app.css"),
    },
];

/// The gRPC routes with gRPC-Web translation (browsers speak gRPC-Web over HTTP/1.1; native
/// gRPC over HTTP/2 passes through untouched), plus a GET route for every asset of the page.
pub fn with_page(routes: Routes) -> Routes {
    let mut router = routes.into_axum_router().layer(GrpcWebLayer::new());
    for asset in &ASSETS {
        router = router.route(asset.path, get(move || async move { serve(asset) }));
    }
    Routes::from(router)
}

/// An asset's reply. The page is small and versioned with the binary: it is revalidated on
/// every load rather than cached, so a new server never runs an old page.
fn serve(asset: &'static Asset) -> Response {
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
        ],
        asset.bytes,
    )
        .into_response()
}
