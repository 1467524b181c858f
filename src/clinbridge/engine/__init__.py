"""The engine: QueryPlan → SQL (per dialect) → guard → execute → validate → Answer."""
