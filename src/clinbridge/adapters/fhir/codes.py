"""FHIR resource types, and the link from FHIR code systems to OMOP vocabularies."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from clinbridge.adapters.fhir.writer import Writer

__all__ = ["RESOURCE_TYPES", "SYSTEM_VOCABULARY", "link_concepts", "vocabulary_id"]

RESOURCE_TYPES: frozenset[str] = frozenset(
    {
        "Account",
        "ActivityDefinition",
        "AdministrableProductDefinition",
        "AdverseEvent",
        "AllergyIntolerance",
        "Appointment",
        "AppointmentResponse",
        "AuditEvent",
        "Basic",
        "Binary",
        "BiologicallyDerivedProduct",
        "BodyStructure",
        "Bundle",
        "CapabilityStatement",
        "CarePlan",
        "CareTeam",
        "CatalogEntry",
        "ChargeItem",
        "ChargeItemDefinition",
        "Citation",
        "Claim",
        "ClaimResponse",
        "ClinicalImpression",
        "ClinicalUseDefinition",
        "CodeSystem",
        "Communication",
        "CommunicationRequest",
        "CompartmentDefinition",
        "Composition",
        "ConceptMap",
        "Condition",
        "Consent",
        "Contract",
        "Coverage",
        "CoverageEligibilityRequest",
        "CoverageEligibilityResponse",
        "DetectedIssue",
        "Device",
        "DeviceDefinition",
        "DeviceMetric",
        "DeviceRequest",
        "DeviceUseStatement",
        "DiagnosticReport",
        "DocumentManifest",
        "DocumentReference",
        "EffectEvidenceSynthesis",
        "Encounter",
        "Endpoint",
        "EnrollmentRequest",
        "EnrollmentResponse",
        "EpisodeOfCare",
        "EventDefinition",
        "Evidence",
        "EvidenceReport",
        "EvidenceVariable",
        "ExampleScenario",
        "ExplanationOfBenefit",
        "FamilyMemberHistory",
        "Flag",
        "Goal",
        "GraphDefinition",
        "Group",
        "GuidanceResponse",
        "HealthcareService",
        "ImagingStudy",
        "Immunization",
        "ImmunizationEvaluation",
        "ImmunizationRecommendation",
        "ImplementationGuide",
        "Ingredient",
        "InsurancePlan",
        "Invoice",
        "Library",
        "Linkage",
        "List",
        "Location",
        "ManufacturedItemDefinition",
        "Measure",
        "MeasureReport",
        "Media",
        "Medication",
        "MedicationAdministration",
        "MedicationDispense",
        "MedicationKnowledge",
        "MedicationRequest",
        "MedicationStatement",
        "MedicinalProduct",
        "MedicinalProductAuthorization",
        "MedicinalProductContraindication",
        "MedicinalProductDefinition",
        "MedicinalProductIndication",
        "MedicinalProductIngredient",
        "MedicinalProductInteraction",
        "MedicinalProductManufactured",
        "MedicinalProductPackaged",
        "MedicinalProductPharmaceutical",
        "MedicinalProductUndesirableEffect",
        "MessageDefinition",
        "MessageHeader",
        "MolecularSequence",
        "NamingSystem",
        "NutritionOrder",
        "NutritionProduct",
        "Observation",
        "ObservationDefinition",
        "OperationDefinition",
        "OperationOutcome",
        "Organization",
        "OrganizationAffiliation",
        "PackagedProductDefinition",
        "Parameters",
        "Patient",
        "PaymentNotice",
        "PaymentReconciliation",
        "Person",
        "PlanDefinition",
        "Practitioner",
        "PractitionerRole",
        "Procedure",
        "Provenance",
        "Questionnaire",
        "QuestionnaireResponse",
        "RegulatedAuthorization",
        "RelatedPerson",
        "RequestGroup",
        "ResearchDefinition",
        "ResearchElementDefinition",
        "ResearchStudy",
        "ResearchSubject",
        "RiskAssessment",
        "RiskEvidenceSynthesis",
        "Schedule",
        "SearchParameter",
        "ServiceRequest",
        "Slot",
        "Specimen",
        "SpecimenDefinition",
        "StructureDefinition",
        "StructureMap",
        "Subscription",
        "SubscriptionStatus",
        "SubscriptionTopic",
        "Substance",
        "SubstanceNucleicAcid",
        "SubstancePolymer",
        "SubstanceProtein",
        "SubstanceReferenceInformation",
        "SubstanceSourceMaterial",
        "SubstanceSpecification",
        "SupplyDelivery",
        "SupplyRequest",
        "Task",
        "TerminologyCapabilities",
        "TestReport",
        "TestScript",
        "ValueSet",
        "VerificationResult",
        "VisionPrescription",
    }
)
"""FHIR R4 (4.0.1) and R4B resource type names."""


SYSTEM_VOCABULARY: dict[str, str] = {
    "http://loinc.org": "LOINC",
    "http://snomed.info/sct": "SNOMED",
    "http://www.nlm.nih.gov/research/umls/rxnorm": "RxNorm",
    "http://hl7.org/fhir/sid/cvx": "CVX",
    "http://unitsofmeasure.org": "UCUM",
    "http://hl7.org/fhir/sid/icd-10-cm": "ICD10CM",
    "http://hl7.org/fhir/sid/icd-10": "ICD10",
    "http://hl7.org/fhir/sid/icd-9-cm": "ICD9CM",
    "http://www.ama-assn.org/go/cpt": "CPT4",
    "http://hl7.org/fhir/sid/ndc": "NDC",
}


def vocabulary_id(system: str | None) -> str | None:
    """OMOP vocabulary_id of a FHIR code system URI (None when unknown)."""
    return SYSTEM_VOCABULARY.get(system or "")


def link_concepts(writer: Writer) -> int:
    """Fill fhir_code.concept_id / standard_concept_id from an OMOP vocabulary in the same database.

    concept_id is the concept with the same vocabulary and code; standard_concept_id is that
    concept when it is standard, else its 'Maps to' target. Returns how many codes are linked.
    """
    tables = {t.lower() for t in writer.db.table_names()}
    if "concept" not in tables:
        return 0
    has_rel = "concept_relationship" in tables
    std = (
        'COALESCE((SELECT c2."concept_id" FROM "concept" c2 WHERE c2."concept_id" = "fhir_code"."concept_id" '
        "AND c2.\"standard_concept\" = 'S'), "
        + (
            '(SELECT MIN(cr."concept_id_2") FROM "concept_relationship" cr WHERE cr."concept_id_1" = '
            '"fhir_code"."concept_id" AND cr."relationship_id" = \'Maps to\'))'
            if has_rel
            else "NULL)"
        )
    )
    with writer.transaction():
        writer.execute(
            'UPDATE "fhir_code" SET "concept_id" = (SELECT MIN(c."concept_id") FROM "concept" c WHERE '
            'c."vocabulary_id" = "fhir_code"."vocabulary_id" AND c."concept_code" = "fhir_code"."code") '
            'WHERE "vocabulary_id" IS NOT NULL AND "concept_id" IS NULL'
        )
        writer.execute(
            f'UPDATE "fhir_code" SET "standard_concept_id" = {std} WHERE "concept_id" IS NOT NULL'
        )
    return int(
        writer.query('SELECT COUNT(*) FROM "fhir_code" WHERE "concept_id" IS NOT NULL')[0][0]
    )
