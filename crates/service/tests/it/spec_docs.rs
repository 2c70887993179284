//! The running service serves its own spec without credentials, byte for byte the committed
//! documents, over a real socket.

use courier_service::testing::TestService;

#[tokio::test(flavor = "multi_thread")]
async fn the_spec_is_served_byte_for_byte_without_credentials() {
    let service = TestService::start().await;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/");
    for (path, file, content_type) in [
        ("/openapi.yaml", "openapi.yaml", "application/yaml"),
        ("/openapi.json", "openapi.json", "application/json"),
    ] {
        let answer = reqwest::get(format!("{}{path}", service.base_url()))
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{path}");
        assert_eq!(answer.headers()["content-type"], content_type, "{path}");
        let served = answer.bytes().await.unwrap();
        let committed = std::fs::read(format!("{root}{file}")).unwrap();
        assert!(served == committed, "{path} differs from spec/{file}");
    }
    let json: serde_json::Value =
        serde_json::from_str(include_str!("../../../../spec/openapi.json")).unwrap();
    assert_eq!(
        json["openapi"], "3.0.3",
        "the JSON form is the same document"
    );
}
