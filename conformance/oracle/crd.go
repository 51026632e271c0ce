package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// crdJudge is the kube-apiserver's handling of a create of one custom resource kind, built from
// the CRD with the API server's own packages: unknown fields (refused, as kubectl's strict field
// validation asks), the schema's defaults, then the create strategy's validation (metadata, the
// OpenAPI schema, list types, CEL rules).
type crdJudge struct {
	structural *structuralschema.Structural
	strategy   createStrategy
}

// createStrategy is the part of the API server's custom resource strategy a create goes through.
type createStrategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
}

// loadCRDs reads every CRD in dir and indexes the served versions by "group/version/Kind".
func loadCRDs(dir string) (map[string]*crdJudge, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	judges := map[string]*crdJudge{}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(text, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, version := range crd.Spec.Versions {
			if !version.Served || version.Schema == nil || version.Schema.OpenAPIV3Schema == nil {
				continue
			}
			internal := &apiextensions.JSONSchemaProps{}
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(version.Schema.OpenAPIV3Schema, internal, nil); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			structural, err := structuralschema.NewStructural(internal)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			validator, _, err := validation.NewSchemaValidator(internal)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version.Name, Kind: crd.Spec.Names.Kind}
			strategy := customresource.NewStrategy(nil, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk, validator, nil, structural, nil, nil, nil)
			judges[crd.Spec.Group+"/"+version.Name+"/"+crd.Spec.Names.Kind] = &crdJudge{structural: structural, strategy: strategy}
		}
	}
	return judges, nil
}

// admit runs the API server's part on obj (an unstructured object, changed in place: pruned
// and defaulted). It returns a stage and messages when the API server would refuse the object.
func (j *crdJudge) admit(obj map[string]interface{}) (string, []string) {
	if unknown := structuralpruning.PruneWithOptions(obj, j.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}); len(unknown) > 0 {
		msgs := make([]string, 0, len(unknown))
		for _, path := range unknown {
			msgs = append(msgs, fmt.Sprintf("unknown field %q", path))
		}
		return "crd-unknown-field", msgs
	}
	structuraldefaulting.Default(obj, j.structural)
	u := &unstructured.Unstructured{Object: obj}
	j.strategy.PrepareForCreate(context.Background(), u)
	if errs := j.strategy.Validate(context.Background(), u); len(errs) > 0 {
		msgs := make([]string, 0, len(errs))
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		return "crd-validate", msgs
	}
	return "", nil
}
