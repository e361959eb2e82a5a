"""mlparse.models"""
