//! Bad codegen input: every error names the file, the CRD and the schema path, and says what
//! the engine accepts instead.

fn check(text: &str, expected: &str) {
    let sources = [calico_codegen::Source {
        name: "input.yaml".to_string(),
        text: text.to_string(),
    }];
    let options = calico_codegen::Options {
        docs: false,
        command: "calico-render codegen --crd input.yaml --out out".to_string(),
    };
    let err = calico_codegen::generate(&sources, &options).expect_err("input must be rejected");
    assert_eq!(err.to_string(), expected);
}

/// A CRD named `widgets.example.com` whose `spec` schema is `spec_schema` (indented by 14).
fn crd(spec_schema: &str) -> String {
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {{kind: Widget, plural: widgets}}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
{spec_schema}"
    )
}

#[test]
fn unmappable_schemas_name_file_crd_and_path() {
    check(
        &crd(
            "              type: object\n              properties:\n                a:\n                  $ref: '#/definitions/x'\n",
        ),
        "input.yaml: CustomResourceDefinition widgets.example.com, version v1, schema path spec.a: schema keyword `$ref` is not supported; supported keywords are type, properties, additionalProperties, items, required, description, title, example, externalDocs, default, minimum, maximum, exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems, maxItems, minProperties, maxProperties, uniqueItems, multipleOf, pattern, enum, format, nullable, oneOf, anyOf, allOf, x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields, x-kubernetes-embedded-resource, x-kubernetes-validations, x-kubernetes-list-type, x-kubernetes-list-map-keys, x-kubernetes-map-type",
    );
    check(
        &crd(
            "              type: object\n              properties:\n                list:\n                  type: array\n                  items:\n                    type: object\n                    properties:\n                      when:\n                        type: date\n",
        ),
        "input.yaml: CustomResourceDefinition widgets.example.com, version v1, schema path spec.list[*].when: type `date` is not supported; valid types are object, array, string, integer, number, boolean",
    );
    check(
        &crd("              type: array\n"),
        "input.yaml: CustomResourceDefinition widgets.example.com, version v1, schema path spec: an array schema needs `items`",
    );
    check(
        &crd(
            "              type: object\n              required: [size]\n              properties:\n                count:\n                  type: integer\n",
        ),
        "input.yaml: CustomResourceDefinition widgets.example.com, version v1, schema path spec: `required` lists `size`, which is not among the declared properties",
    );
    check(
        &crd(
            "              type: object\n              properties:\n                n:\n                  type: integer\n                  maxLength: -1\n",
        ),
        "input.yaml: CustomResourceDefinition widgets.example.com, version v1, schema path spec.n: `maxLength` must be a non-negative integer, found `-1`",
    );
    check(
        &crd("              type: object\n              properties: [a, b]\n"),
        "input.yaml: CustomResourceDefinition widgets.example.com, version v1, schema path spec: `properties` must be a mapping, found a sequence",
    );
    check(
        &crd(
            "              type: object\n              properties:\n                a: {type: string}\n              additionalProperties: {type: string}\n",
        ),
        "input.yaml: CustomResourceDefinition widgets.example.com, version v1, schema path spec: an object with both `properties` and `additionalProperties` is not supported; Kubernetes structural schemas forbid it",
    );
}

#[test]
fn malformed_crds_and_inputs_are_named() {
    check(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: []\n",
        "input.yaml: CustomResourceDefinition widgets.example.com: missing or empty `spec.group`",
    );
    check(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Global\n  versions: []\n",
        "input.yaml: CustomResourceDefinition widgets.example.com: `spec.scope` is `Global`, expected Namespaced or Cluster",
    );
    check(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
        "no CustomResourceDefinition with a served version found in input.yaml; pass CRD YAML files, multi-document bundles or directories of them",
    );
    let err = calico_codegen::generate(
        &[calico_codegen::Source {
            name: "broken.yaml".to_string(),
            text: "a: [unclosed\n".to_string(),
        }],
        &calico_codegen::Options {
            docs: false,
            command: String::new(),
        },
    )
    .expect_err("not YAML");
    assert!(
        err.to_string()
            .starts_with("broken.yaml is not valid YAML: "),
        "{err}"
    );
}

#[test]
fn the_same_kind_twice_is_an_error() {
    let text = crd("              type: object\n");
    let sources = [
        calico_codegen::Source {
            name: "a.yaml".to_string(),
            text: text.clone(),
        },
        calico_codegen::Source {
            name: "b.yaml".to_string(),
            text,
        },
    ];
    let options = calico_codegen::Options {
        docs: false,
        command: String::new(),
    };
    let err = calico_codegen::generate(&sources, &options).expect_err("duplicate");
    assert_eq!(
        err.to_string(),
        "example.com/v1 Widget is defined twice, in a.yaml and in b.yaml; pass each CRD only once (a directory and a bundle containing the same CRD count twice)"
    );
}
