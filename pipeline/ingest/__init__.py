"""Ingestion: scanned statements (documents, pages, words) and workbooks."""
