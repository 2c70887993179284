//! The admin API reads `Authorization` with the interfaces' own bearer parser: the scheme in
//! any case (RFC 9110), the token compared in constant time, anything else the API's 401.

use courier_service::testing::TestService;

#[tokio::test]
async fn the_admin_bearer_scheme_is_case_insensitive_and_anything_else_is_refused() {
    let service = TestService::start().await;
    let url = format!("{}/admin/v1/runs", service.base_url());
    let token = &service.admin_token;
    let client = reqwest::Client::new();
    for (authorization, expected) in [
        (format!("Bearer {token}"), 201),
        (format!("bearer {token}"), 201),
        (format!("BEARER {token}"), 201),
        ("Bearer wrong-token".to_owned(), 401),
        (format!("Basic {token}"), 401),
        ("Bearer".to_owned(), 401),
    ] {
        let response = client
            .post(&url)
            .header("authorization", &authorization)
            .header("content-type", "application/json")
            .body("[]")
            .send()
            .await
            .expect("admin request");
        assert_eq!(response.status().as_u16(), expected, "{authorization}");
    }
}
