"""Tests of mail ingestion (pipeline/ingest/mail)."""
