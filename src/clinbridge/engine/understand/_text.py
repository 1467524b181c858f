"""Text helpers for understanding: normalisation, tokens, light stemming, word lists.

The word lists here are general English and general clinical language (lay terms and common
abbreviations), never phrases of particular benchmark questions.
"""

from __future__ import annotations

import re

__all__ = [
    "ABBREVIATIONS",
    "NUMBER_WORDS",
    "SOFT_WORDS",
    "STOP_WORDS",
    "STREAM_HINTS",
    "content_tokens",
    "normalize",
    "stem",
    "tokens",
]

NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100,
}

# Words that never name a concept and never carry meaning for grounding.
STOP_WORDS = frozenset(
    ["a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "into", "within", "during", "and", "or", "but", "as", "than", "that", "which", "who", "whom", "whose", "this", "these", "those", "there", "their", "his", "her", "its", "it", "they", "them", "he", "she", "we", "our", "you", "your", "my", "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "having", "do", "does", "did", "done", "any", "all", "some", "each", "every", "ever", "also", "only", "just", "still", "yet", "both", "either", "neither", "such", "same", "other", "another", "one", "ones", "s"]
)

# Words that may be part of a concept's name ("History of myocardial infarction", "Glucose
# tolerance test") but, when left over after grounding, only hint at the stream or mean nothing.
STREAM_HINTS: dict[str, str] = {
    "diagnosed": "condition", "diagnosis": "condition", "diagnose": "condition",
    "condition": "condition", "disease": "condition", "disorder": "condition",
    "problem": "condition", "comorbidity": "condition", "suffering": "condition",
    "suffer": "condition", "suffered": "condition", "develop": "condition",
    "developed": "condition", "developing": "condition", "episode": "condition",
    "prescribed": "drug", "prescription": "drug", "prescribe": "drug", "exposed": "drug",
    "exposure": "drug", "drug": "drug", "medication": "drug", "medicine": "drug",
    "treated": "drug", "treatment": "drug", "took": "drug", "taking": "drug", "take": "drug",
    "given": "drug", "dispensed": "drug", "dispensing": "drug", "user": "drug", "starting": "drug",
    "started": "drug", "start": "drug", "initiation": "drug", "initiated": "drug", "dose": "drug",
    "fill": "drug", "administered": "drug", "administration": "drug", "therapy": "drug",
    "receiving": "drug", "received": "drug", "receive": "drug", "use": "drug", "used": "drug",
    "underwent": "procedure", "undergo": "procedure", "undergoing": "procedure",
    "procedure": "procedure", "operation": "procedure", "performed": "procedure",
    "measured": "measurement", "measurement": "measurement", "test": "measurement",
    "tested": "measurement", "lab": "measurement", "laboratory": "measurement",
    "level": "measurement", "value": "measurement", "result": "measurement",
    "reading": "measurement", "concentration": "measurement",
    "observation": "observation", "observed": "observation",
}

SOFT_WORDS = frozenset(
    set(STREAM_HINTS)
    | set(
        ["history", "recorded", "documented", "record", "known", "confirmed", "new", "any", "prior", "previous", "previously", "patient", "patients", "person", "people", "had", "has", "have", "got", "get", "gets", "experienced", "experience", "time", "times", "occasion", "occurrence", "instance", "event", "events", "entry", "entries", "ever", "total", "overall", "mentioned", "noted", "registered", "coded", "listed", "database", "data", "dataset"]
    )
)

# General clinical abbreviations and lay terms → wording used by clinical vocabularies.
ABBREVIATIONS: dict[str, str] = {
    "gi": "gastrointestinal", "bleed": "hemorrhage", "bleeding": "hemorrhage",
    "bleeds": "hemorrhage", "haemorrhage": "hemorrhage", "hemorrhages": "hemorrhage",
    "heart attack": "myocardial infarction", "mi": "myocardial infarction",
    "ami": "acute myocardial infarction", "afib": "atrial fibrillation",
    "a-fib": "atrial fibrillation", "af": "atrial fibrillation", "stroke": "cerebrovascular accident",
    "cva": "cerebrovascular accident", "high blood pressure": "hypertension",
    "htn": "hypertension", "uti": "urinary tract infection", "utis": "urinary tract infection",
    "copd": "chronic obstructive pulmonary disease", "chf": "congestive heart failure",
    "ckd": "chronic kidney disease", "t2dm": "type 2 diabetes mellitus",
    "t1dm": "type 1 diabetes mellitus", "dm": "diabetes mellitus", "cad": "coronary artery disease",
    "cabg": "coronary artery bypass graft", "pci": "percutaneous coronary intervention",
    "dvt": "deep venous thrombosis", "pe": "pulmonary embolism", "bmi": "body mass index",
    "bp": "blood pressure", "sbp": "systolic blood pressure", "dbp": "diastolic blood pressure",
    "hr": "heart rate", "hba1c": "hemoglobin a1c", "a1c": "hemoglobin a1c",
    "wbc": "white blood cell", "rbc": "red blood cell", "ekg": "electrocardiogram",
    "ecg": "electrocardiogram", "ldl": "ldl cholesterol", "hdl": "hdl cholesterol",
    "tsh": "thyrotropin", "inr": "inr", "bun": "urea nitrogen", "egfr": "glomerular filtration rate",
    "alt": "alanine aminotransferase", "ast": "aspartate aminotransferase",
    "broken": "fracture", "fractured": "fracture", "haemoglobin": "hemoglobin", "hgb": "hemoglobin",
    "hb": "hemoglobin", "sugar": "glucose", "blood sugar": "glucose",
    "ear infection": "otitis media", "tylenol": "acetaminophen", "paracetamol": "acetaminophen",
    "advil": "ibuprofen", "motrin": "ibuprofen", "aleve": "naproxen", "celebrex": "celecoxib",
    "voltaren": "diclofenac", "coumadin": "warfarin", "plavix": "clopidogrel",
    "lipitor": "atorvastatin", "zocor": "simvastatin", "temp": "temperature",
    "oesophagitis": "esophagitis", "anaemia": "anemia", "appendicectomy": "appendectomy",
    "ulcers": "ulcer", "diabetic": "diabetes", "diabetics": "diabetes", "asthmatic": "asthma",
    "asthmatics": "asthma", "hypertensive": "hypertension", "hypertensives": "hypertension",
    "obese": "obesity", "epileptic": "epilepsy", "epileptics": "epilepsy", "anemic": "anemia",
    "anaemic": "anemia", "septic": "sepsis", "pregnant": "pregnancy", "depressed": "depression",
    "osteoporotic": "osteoporosis", "arthritic": "arthritis", "cirrhotic": "cirrhosis", "sats": "oxygen saturation", "spo2": "oxygen saturation",
    "o2 sat": "oxygen saturation", "potassium level": "potassium", "sodium level": "sodium",
}

_PUNCT = re.compile(r"[\"“”‘’`´]")
_SPACES = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Lower-case, unify quotes and comparison signs, drop question marks, collapse spaces."""
    s = text.strip().lower()
    s = s.replace("≥", " >= ").replace("≤", " <= ").replace("’", "'").replace("–", "-")
    s = _PUNCT.sub("", s)
    s = s.replace("'s ", " 's ").replace("s' ", "s ")
    s = re.sub(r"[?!]+", " ", s)
    s = re.sub(r"\.(\s|$)", r" \1", s)
    s = re.sub(r"([<>]=?)(\d)", r"\1 \2", s)
    return _SPACES.sub(" ", s).strip()


_TOKEN = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def stem(word: str) -> str:
    """A light plural/inflection stemmer, applied the same way to questions and concept names."""
    w = word.lower()
    if len(w) <= 3 or w.isdigit():
        return w
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh")):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            return w[: -len(suffix)] + repl
    if w.endswith("s") and not w.endswith(("ss", "us", "is", "ys")):
        return w[:-1]
    return w


def content_tokens(text: str) -> list[str]:
    """Stemmed tokens without stop words."""
    return [stem(t) for t in tokens(text) if t not in STOP_WORDS]
